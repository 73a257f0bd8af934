// Writes src/rest/openapi/examples.json: the answers of the v1 routes on the demo marketplace
// (seeded in memory with a fixed clock, so every run writes the same file). The OpenAPI
// document shows them as examples; test/rest/openapi.test.ts checks them against the response
// schemas, so a response shape that changes fails there.
import { writeFileSync } from 'node:fs';
import { boot } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seedDemo } from '../src/demo/seed-demo.js';
import { DEMO_COLLECTION, DEMO_SIGNER } from '../src/demo/demo-addresses.js';
import { createLogger } from '../src/logger.js';

const config = loadConfig({ DATA_DIR: 'memory', SEED: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', SIGNATURE_WORKERS: '0' });
const running = await boot(config, createLogger('silent'), { now: () => new Date('2026-06-01T12:00:00Z'), indexer: false });
try {
  await seedDemo(running.services);
  const get = async (path: string) => {
    const res = await running.yoga.fetch(`http://examples/api/v1${path}`);
    return (await res.json()) as { data: unknown };
  };
  const orders = (await get('/orders?isOrderAsk=true&status[]=VALID&sort=PRICE_ASC&pagination[first]=50')).data as Record<string, unknown>[];
  const rewards = (await get('/collections/listing-rewards')).data as unknown[];
  // A standard sale (empty params) is the simplest MakerOrder to show.
  const o = orders.find((x) => x.params === '')!;
  const examples = {
    orders: orders.slice(0, 2),
    nonce: (await get(`/orders/nonce?address=${DEMO_SIGNER}`)).data,
    collection: (await get(`/collections?address=${DEMO_COLLECTION}`)).data,
    collectionStats: (await get(`/collections/stats?address=${DEMO_COLLECTION}`)).data,
    collectionSearch: (await get('/collections/search?q=lanturn%20owls&limit=2')).data,
    // the first two trait types with their two most common values (the whole panel is long)
    collectionAttributes: ((await get(`/collections/attributes?collection=${DEMO_COLLECTION}`)).data as { values: unknown[] }[]).slice(0, 2).map((t) => ({ ...t, values: t.values.slice(0, 2) })),
    listingRewards: rewards.slice(0, 2),
    // A MakerOrder body as a client sends it (spec 2.3): a demo listing, as signed.
    makerOrder: {
      isOrderAsk: o.isOrderAsk,
      signer: o.signer,
      collection: o.collectionAddress,
      price: o.price,
      tokenId: o.tokenId,
      amount: o.amount,
      strategy: o.strategy,
      currency: o.currencyAddress,
      nonce: o.nonce,
      startTime: o.startTime,
      endTime: o.endTime,
      minPercentageToAsk: o.minPercentageToAsk,
      params: [],
      signature: o.signature,
    },
  };
  writeFileSync(new URL('../src/rest/openapi/examples.json', import.meta.url), JSON.stringify(examples, null, 2) + '\n');
  console.log('src/rest/openapi/examples.json written');
} finally {
  await running.close();
}
