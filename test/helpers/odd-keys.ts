/**
 * Keys an upstream may write (orderId, countId, productId), each holding characters that mean something in a URL, a
 * path, a shell or a job id: `% / # ? & + :`, a `..` between slashes, quotes, a backslash, unicode and an emoji.
 */
export const ODD_KEYS = [
  '50%OFF-5',
  'A/B-1',
  'A/../B',
  '../x',
  '#12',
  'Q?1',
  'A&B',
  'A+B',
  'ns:1',
  "O'Brien",
  'say "hi"',
  'back\\slash',
  'Zürich-Ω',
  'gift-🎁',
] as const;
