// Token metadata for the demo marketplace, generated offline (no chain, no network): each token
// gets a name, a small SVG image as a data: URI and traits drawn with skewed weights (so ranks and
// trait floors mean something), written through the same normaliser and store as the pipeline's
// reads (src/domain/token-metadata.ts, src/db/token-metadata-sql.ts), then ranked by OpenRarity.
// Its own PRNG seed: the rest of the demo draws the same numbers as before.
import { createHash } from 'node:crypto';
import { normaliseMetadata } from '../domain/token-metadata.js';
import type { MetadataWrite } from '../db/token-metadata-sql.js';
import type { Services } from '../services/index.js';
import { createMetadataQueue } from '../services/metadata-queue.js';
import { createTokenRarity } from '../services/token-rarity.js';
import { prng } from './prng.js';

/** [value, weight]: the first values are common, the last rare. */
const TRAITS: Record<string, [string, number][]> = {
  Background: [['Dusk', 30], ['Sand', 25], ['Moss', 20], ['Slate', 15], ['Ember', 8], ['Gold', 2]],
  Body: [['Copper', 35], ['Ash', 30], ['Ivory', 20], ['Obsidian', 12], ['Prism', 3]],
  Eyes: [['Calm', 40], ['Wide', 30], ['Sleepy', 20], ['Laser', 8], ['Void', 2]],
  Headwear: [['None', 45], ['Cap', 20], ['Beanie', 15], ['Halo', 12], ['Crown', 6], ['Antlers', 2]],
};
const PALETTE: Record<string, string> = {
  Dusk: '#3b3355', Sand: '#d8c69a', Moss: '#5c7a4a', Slate: '#5a6675', Ember: '#b4472c', Gold: '#d4a017',
  Copper: '#b87333', Ash: '#b2beb5', Ivory: '#fffff0', Obsidian: '#1b1b1f', Prism: '#7fd4e8',
};

function weighted(rnd: ReturnType<typeof prng>, values: [string, number][]): string {
  let r = rnd.next() * values.reduce((s, [, w]) => s + w, 0);
  for (const [v, w] of values) if ((r -= w) < 0) return v;
  return values.at(-1)![0];
}

function svg(background: string, body: string, eyes: string): string {
  const eye = eyes === 'Laser' ? '#ff2a2a' : eyes === 'Void' ? '#000' : '#fafafa';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="${PALETTE[background]}"/>` +
    `<circle cx="32" cy="36" r="20" fill="${PALETTE[body]}"/><circle cx="25" cy="32" r="4" fill="${eye}"/><circle cx="39" cy="32" r="4" fill="${eye}"/></svg>`
  );
}

/** The demo document of one token (ERC-1155 passes carry a tier and an edition size instead of a face). */
export function demoTokenDocument(collectionName: string, type: 'ERC721' | 'ERC1155', tokenId: number, rnd: ReturnType<typeof prng>): object {
  const traits = Object.fromEntries(Object.entries(TRAITS).map(([t, values]) => [t, weighted(rnd, values)]));
  const image = `data:image/svg+xml;base64,${Buffer.from(svg(traits.Background!, traits.Body!, traits.Eyes!)).toString('base64')}`;
  const attributes =
    type === 'ERC1155'
      ? [
          { trait_type: 'Tier', value: tokenId <= 2 ? 'Founder' : tokenId <= 6 ? 'Patron' : 'Guest' },
          { trait_type: 'Background', value: traits.Background },
          { trait_type: 'Edition size', value: 25 * rnd.int(1, 8), display_type: 'number' },
        ]
      : [...Object.entries(traits).map(([trait_type, value]) => ({ trait_type, value })), { trait_type: 'Level', value: rnd.int(1, 10), display_type: 'number' }];
  return { name: `${collectionName} #${tokenId}`, description: `Token ${tokenId} of ${collectionName}, a demo collection.`, image, attributes };
}

export async function seedDemoTokenMetadata(services: Services, collections: readonly { address: string; name: string; type: 'ERC721' | 'ERC1155'; supply: number }[]): Promise<number> {
  const rnd = prng(4906);
  const queue = createMetadataQueue(services.deps);
  const rarity = createTokenRarity(services.deps);
  let written = 0;
  for (const c of collections) {
    const writes: MetadataWrite[] = [];
    for (let id = 1; id <= c.supply; id++) {
      const bytes = Buffer.from(JSON.stringify(demoTokenDocument(c.name, c.type, id, rnd)));
      const doc = normaliseMetadata(bytes);
      if (!doc.ok) throw new Error(`demo metadata of ${c.name} #${id} does not normalise: ${doc.message}`);
      const m = doc.metadata;
      writes.push({
        collectionAddress: c.address,
        tokenId: String(id),
        status: 'OK',
        errorCode: null,
        errorMessage: null,
        tokenUri: `data:application/json;base64,${bytes.toString('base64')}`,
        document: {
          text: bytes.toString('utf8'),
          sha256: createHash('sha256').update(bytes).digest('hex'),
          name: m.name,
          description: m.description,
          image: m.image,
          animationUrl: m.animationUrl,
          externalUrl: m.externalUrl,
          attributes: m.attributes,
        },
        nextFetchAt: null,
        retryAt: null,
      });
    }
    await queue.store(writes, null);
    await rarity.rankNow(c.address);
    written += writes.length;
  }
  // the ranks are written: nothing is owed
  await services.deps.db.sql.query(`UPDATE collection_metadata SET rarity_due_at = NULL`);
  return written;
}
