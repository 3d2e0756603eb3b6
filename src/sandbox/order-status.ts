/** Order statuses (docs/service.md "States"). */
export const ORDER_CREATED = 'ORDER_CREATED';
export const ORDER_LOCKED = 'ORDER_LOCKED';
export const ORDER_COMPLETED = 'ORDER_COMPLETED';
export const ORDER_CANCELLED = 'ORDER_CANCELLED';
