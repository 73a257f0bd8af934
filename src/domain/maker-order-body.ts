// A maker order as a client sends it to POST /api/v1/orders and createOrder (spec 2.3), before
// its signature: JSON values, with amounts, ids and nonces as decimal strings. The server takes
// any JSON and says what is wrong (./maker-order-input.ts); this is the shape of a right one, for
// the clients in the tests and benches.
export interface MakerOrderBody {
  isOrderAsk: boolean;
  signer: string;
  collection: string;
  price: string;
  /** null for a collection offer */
  tokenId: string | null;
  amount: string;
  strategy: string;
  currency: string;
  nonce: string;
  startTime: number;
  endTime: number;
  minPercentageToAsk: number;
  /** strategy params as the v1 SDK signs them */
  params: (string | boolean | number)[];
}
