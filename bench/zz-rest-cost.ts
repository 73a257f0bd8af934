import { parseQueryString, objectParam, listParam } from '../src/rest/query-string.js';
import { cleanQueryValues, OrdersQuery } from '../src/rest/request-schemas.js';
import { parseOrderQuery } from '../src/domain/order-query.js';
import { restOrdersPath } from './peer-queries.js';
const path = restOrdersPath('0x00000000000000000000000000000000C0110000');
const search = path.slice(path.indexOf('?'));
function step(n: number, name: string, fn: () => unknown) {
  for (let i = 0; i < 2000; i++) fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  console.log(name, (((performance.now() - t) * 1000) / n).toFixed(2), 'µs');
}
const query = parseQueryString(search);
step(50000, 'qs', () => parseQueryString(search));
const cleaned = () => cleanQueryValues({ ...query, 'status[]': undefined, status: listParam(query, 'status'), price: objectParam(query, 'price'), pagination: objectParam(query, 'pagination') });
step(50000, 'clean', cleaned);
const c = cleaned();
step(50000, 'zod', () => OrdersQuery.safeParse(c));
const q = OrdersQuery.safeParse(c).data!;
step(50000, 'parseOrderQuery', () => parseOrderQuery({ hash: q.hash, isOrderAsk: q.isOrderAsk, collection: q.collection, tokenId: q.tokenId, signer: q.signer, strategy: q.strategy, currency: q.currency, nonce: q.nonce, priceMin: q.price?.min, priceMax: q.price?.max, startTime: q.startTime, endTime: q.endTime, status: q.status, sort: q.sort, first: q.pagination?.first, cursor: q.pagination?.cursor }));
const body = 'x'.repeat(13000);
step(50000, 'envelope', () => `{"success":true,"message":null,"data":${body}}`.length);
step(50000, 'byteLength', () => Buffer.byteLength(`{"success":true,"message":null,"data":${body}}`));
