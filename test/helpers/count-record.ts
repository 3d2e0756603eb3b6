/** A count of the demo account. */
export function countRecord(countId: string, location: string, countDate: string, items: Array<[string, number]>) {
  return { countId, location, countDate, items: items.map(([productId, quantity]) => ({ productId, quantity })) };
}
