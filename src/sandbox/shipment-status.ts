/** Shipment statuses (docs/service.md "States"). */
export const SHIPMENT_INPUT = 'SHIPMENT_INPUT';
export const SHIPMENT_PACKED = 'SHIPMENT_PACKED';
export const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
export const SHIPMENT_CANCELLED = 'SHIPMENT_CANCELLED';
