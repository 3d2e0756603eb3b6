import type { ApiOf } from './api-of.js';
import type { ServiceCalls } from './service-calls.js';

export type { ApiCall, CallOptions, RequestClass } from './api-call.js';

/**
 * The typed calls of the service that the jobs use: one method per row of `serviceCalls` (service-calls.ts). URLs are
 * paths as the service returns them (e.g. /acme/api/shipment/X); the client prefixes the base URL. Every method
 * throws ServiceError.
 */
export type ServiceApi = ApiOf<ServiceCalls>;
