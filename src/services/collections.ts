// Collections: read by address (batched per request) and administration (upsert, JSON import).
import { ZERO_ADDRESS } from '../domain/address.js';
import { parseCollectionInput, type CollectionInput } from '../domain/collection-input.js';
import { badRequest, ServiceError, type FieldProblem } from '../domain/errors.js';
import type { StatementBatch } from '../db/statement-batch.js';
import type { Collection, Prisma } from '../generated/prisma/client.js';
import { ALL_COLLECTION_COLUMNS } from './order-page-sql.js';

// Every column, named as Prisma names them; JSON-safe for a statement batch (no NUMERIC).
const COLLECTIONS_SQL = `SELECT ${ALL_COLLECTION_COLUMNS.map((c) => `${c.sql} AS "${c.key}"`).join(', ')}
  FROM collections c WHERE c.address = ANY($1::text[])`;

type Tx = Prisma.TransactionClient;
import { readDb, type ServiceDeps } from './deps.js';

export function createCollectionService(deps: ServiceDeps) {
  const { prisma } = deps.db;

  async function getCollection(address: string): Promise<Collection | null> {
    return readDb(deps).prisma.collection.findUnique({ where: { address } });
  }

  /** For DataLoader: results in key order, null for unknown addresses. One statement (batchable). */
  async function getCollections(addresses: readonly string[], runner: StatementBatch = readDb(deps).sql): Promise<(Collection | null)[]> {
    const rows = await runner.query<Collection>(COLLECTIONS_SQL, [[...addresses]]);
    const byAddress = new Map(
      rows.map((r) => {
        // a statement batch returns timestamps as JSON strings
        r.createdAt = new Date(r.createdAt);
        r.updatedAt = new Date(r.updatedAt);
        return [r.address, r];
      }),
    );
    return addresses.map((a) => byAddress.get(a) ?? null);
  }

  /** Creates or updates; returns the stored collection and whether it was created. */
  async function upsertCollection(raw: unknown): Promise<{ collection: Collection; created: boolean }> {
    const parsed = parseCollectionInput(raw);
    if (!parsed.ok) throw badRequest(parsed.problems);
    const input = parsed.value;
    // A transaction so the existence check and the write see one state (two admins racing).
    return prisma.$transaction((tx) => upsertIn(tx, input));
  }

  async function upsertIn(tx: Tx, input: CollectionInput): Promise<{ collection: Collection; created: boolean }> {
    const { address, ...fields } = input;
    {
      const existing = await tx.collection.findUnique({ where: { address }, select: { address: true } });
      if (existing) {
        const collection = await tx.collection.update({ where: { address }, data: fields });
        return { collection, created: false };
      }
      if (!fields.type) {
        throw badRequest([{ field: 'type', code: 'REQUIRED', message: 'type (ERC721 or ERC1155) is required to create a collection' }]);
      }
      const collection = await tx.collection.create({
        data: { ...fields, address, type: fields.type, owner: fields.owner ?? ZERO_ADDRESS },
      });
      // Its history before the indexer follows it: backfilled by the indexer (collection-backfill.ts).
      const backfillFrom = deps.config.rpcUrl ? deps.config.indexer?.backfillFromBlock : null;
      if (backfillFrom != null) await tx.collectionBackfill.create({ data: { collectionAddress: address, fromBlock: backfillFrom, nextBlock: backfillFrom } });
      return { collection, created: true };
    }
  }

  /**
   * Imports a list of collections (the CLI's JSON file). Everything is validated first and
   * nothing is written unless every entry is valid, so a file is applied whole or not at all.
   */
  async function importCollections(list: unknown): Promise<{ created: number; updated: number }> {
    if (!Array.isArray(list)) throw new ServiceError('BAD_REQUEST', 'the import must be a JSON array of collections');
    const problems: FieldProblem[] = [];
    const inputs: CollectionInput[] = [];
    list.forEach((raw, i) => {
      const p = parseCollectionInput(raw);
      if (p.ok) inputs.push(p.value);
      else problems.push(...p.problems.map((x) => ({ ...x, field: `[${i}].${x.field}` })));
    });
    if (problems.length) throw badRequest(problems, `the import has ${problems.length} problem(s); nothing was written`);
    return prisma.$transaction(async (tx) => {
      let created = 0;
      let updated = 0;
      for (const input of inputs) {
        const r = await upsertIn(tx, input);
        if (r.created) created++;
        else updated++;
      }
      return { created, updated };
    });
  }

  return { getCollection, getCollections, upsertCollection, importCollections };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
