// Order submission (spec 2.3-2.5, issue 3): one assessment used by the dry run (validateOrder)
// and by createOrder. The hash is computed here, never taken from the client. Nothing is
// written for a refused order. An accepted one is stored by one call of the SQL function
// submit_order (migration 20261123100000_order_submission), one round trip: under a per-(signer,
// nonce) lock it re-checks the nonce rules, the duplicate and the 20-orders cap, and inserts.
//
// The submission/indexing race (issue 11 §1): the chain checks are pinned to one block B, and the
// row stores B (chain_checked_block) until an indexer batch has evaluated it against the chain at
// or after every later block (src/chain/indexer/unsettled-orders.ts). The insert and a batch's
// writes are serialised by one advisory lock (shared here, exclusive in the batch), so nonce
// facts committed by a batch are seen by the re-checks, and a row committed first is seen by the
// batch's statements.
import type { DiscoveredCollection } from '../chain/chain-reader.js';
import { ChainUnavailableError } from '../chain/chain-reader.js';
import { computeOrderHash, exchangeDomain } from '../domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder, type ParsedMakerOrderInput } from '../domain/maker-order-input.js';
import { paramsToJson } from '../domain/order-params.js';
import { orderProblem, type OrderProblem, type OrderProblemCode } from '../domain/order-problems.js';
import { checkOrderRules } from '../domain/order-rules.js';
import { ECDSA_PROBLEM_CODES } from '../domain/order-signature.js';
import { strategyKind } from '../domain/networks.js';
import { Prisma, type Order } from '../generated/prisma/client.js';
import type { StatsService } from './stats.js';
import { nowSeconds, type ServiceDeps } from './deps.js';
import { OrderRejectedError } from './order-rejected.js';
import { inlineSignatureVerifier } from './signature-pool.js';

/** Spec 2.4 rule 3 / spec 8. */
export const MAX_ORDERS_PER_NONCE = 20;
/** createOrders: the most orders one call may carry. */
export const MAX_BATCH = 100;

export interface OrderValidation {
  /** the struct hash (spec 2.5); null when the fields do not parse */
  hash: string | null;
  /** the address the signature recovers to (the contract signer when EIP-1271 accepts it); null when nothing recovers */
  recoveredSigner: string | null;
  valid: boolean;
  problems: OrderProblem[];
}

interface Assessment extends OrderValidation {
  parsed: ParsedMakerOrderInput | null;
  sig: { signature: string; v: number; r: string; s: string } | null;
  /** a collection found on chain, to register with the order */
  discovered: DiscoveredCollection | null;
  /** the block the chain checks read at; null when no chain is configured */
  checkedBlock: number | null;
}

/** Test seams for the race tests (test/chain/submission-race.test.ts); unset in production. */
export interface SubmissionHooks {
  /** after every check (chain included), before the insert */
  beforeInsert?(hash: string): Promise<void>;
}

type SubmitRow = { code: string; id: string | number | bigint | null; created_at: Date | string | null; updated_at: Date | string | null };

type StateRow = { ctype: 'ERC721' | 'ERC1155' | null; min_nonce: string | null; dead: boolean; same_nonce: number; duplicate: boolean };

export function createOrderSubmissionService(deps: ServiceDeps, stats: Pick<StatsService, 'recordFloorSoon'>) {
  const { sql } = deps.db;
  const { network, chain } = deps;
  const domain = exchangeDomain(network.chainId, network.exchange);
  const signatures = deps.signatures ?? inlineSignatureVerifier;
  const hooks = deps.submissionHooks;

  async function assess(raw: unknown): Promise<Assessment> {
    const parse = parseMakerOrderInput(raw);
    if (!parse.ok) return { hash: null, recoveredSigner: null, valid: false, problems: parse.problems, parsed: null, sig: null, discovered: null, checkedBlock: null };
    const p = parse.value;
    const order = toSignedMakerOrder(p);
    const hash = computeOrderHash(order);
    const problems: OrderProblem[] = [];
    // The block every chain read below is pinned to (asked first: the checks must not read later
    // blocks than the one recorded, or an event between the two could go unevaluated).
    let chainDown = false;
    let checkedBlock: number | null = null;
    if (chain) {
      try {
        checkedBlock = await chain.headBlock();
      } catch (err) {
        if (!(err instanceof ChainUnavailableError)) throw err;
        chainDown = true;
      }
    }
    const sigCheck = await signatures.check(order, p.signature, domain, hash);

    // Database state for the rules below, in one statement.
    const [state] = await sql.query<StateRow>(
      `SELECT (SELECT type::text FROM collections WHERE address = $1) AS ctype,
              (SELECT min_nonce::text FROM signer_nonce_state WHERE signer = $2) AS min_nonce,
              (EXISTS (SELECT 1 FROM dead_nonces WHERE signer = $2 AND nonce = $3)
                OR EXISTS (SELECT 1 FROM orders WHERE signer = $2 AND nonce = $3 AND status = 'EXECUTED')) AS dead,
              (SELECT COUNT(*) FROM orders WHERE signer = $2 AND nonce = $3)::int AS same_nonce,
              EXISTS (SELECT 1 FROM orders WHERE hash = $4) AS duplicate`,
      [p.collection, p.signer, p.nonce.toString(), hash],
      'order_submission_state',
    );
    let collectionType = state!.ctype;
    let discovered: DiscoveredCollection | null = null;
    const block = checkedBlock ?? 'latest';
    const onChain = async <T>(fn: () => Promise<T>): Promise<T | null> => {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof ChainUnavailableError)) throw err;
        chainDown = true;
        return null;
      }
    };

    if (!collectionType) {
      if (chain) {
        discovered = await onChain(() => chain.discoverCollection(p.collection));
        collectionType = discovered?.type ?? null;
      }
      if (!collectionType && !chainDown) {
        problems.push(
          orderProblem('UNKNOWN_COLLECTION', 'collection', chain ? 'Collection is not an ERC-721 or ERC-1155 contract' : 'Collection is not known to this marketplace'),
        );
      }
    }

    problems.push(...checkOrderRules(p, { network, nowSeconds: nowSeconds(deps), collectionType }));

    // Signature: an EOA must recover to the signer; a contract signer answers through EIP-1271.
    let recovered = sigCheck.recovered;
    if (sigCheck.problems.length) {
      const ecdsaOnly = sigCheck.problems.every((x) => ECDSA_PROBLEM_CODES.includes(x.code));
      const isContract = ecdsaOnly && chain ? await onChain(() => chain.isContract(p.signer)) : false;
      if (isContract) {
        const ok = await onChain(() => chain!.isValidContractSignature(p.signer, sigCheck.digest, p.signature));
        if (ok) recovered = p.signer;
        else if (ok === false) problems.push(orderProblem('CONTRACT_SIGNATURE_INVALID', 'signature'));
      } else {
        problems.push(...sigCheck.problems);
      }
    }

    // Nonce rules (spec 2.4) and duplicates.
    if (state!.min_nonce !== null && p.nonce < BigInt(state!.min_nonce)) problems.push(orderProblem('NONCE_TOO_LOW', 'nonce'));
    if (state!.dead) problems.push(orderProblem('NONCE_USED', 'nonce'));
    if (state!.duplicate) problems.push(orderProblem('DUPLICATE_ORDER', null));
    else if (state!.same_nonce >= MAX_ORDERS_PER_NONCE) problems.push(orderProblem('NONCE_CAP_REACHED', 'nonce'));

    // Chain state: the asset and approvals behind the order (refused at submission, like v1).
    if (chain && collectionType && checkedBlock !== null) {
      const kind = strategyKind(network, p.strategy);
      if (p.isOrderAsk && p.tokenId !== null) {
        const manager = collectionType === 'ERC721' ? network.transferManagerERC721 : network.transferManagerERC1155;
        const [holds, approved] = await Promise.all([
          onChain(() => chain.holds(p.collection, collectionType!, p.tokenId!, p.signer, p.amount, block)),
          manager ? onChain(() => chain.isApprovedForAll(p.collection, p.signer, manager, block)) : Promise.resolve(false),
        ]);
        if (holds === false) problems.push(orderProblem('NOT_OWNER', 'tokenId'));
        if (approved === false) problems.push(orderProblem('NOT_APPROVED', 'collection'));
      } else if (!p.isOrderAsk && kind !== null) {
        const weth = await onChain(() => chain.erc20BalanceAndAllowance(network.weth, p.signer, network.exchange, block));
        if (weth && weth.balance < p.price) problems.push(orderProblem('INSUFFICIENT_WETH_BALANCE', 'price'));
        if (weth && weth.allowance < p.price) problems.push(orderProblem('INSUFFICIENT_WETH_ALLOWANCE', 'price'));
      }
    }
    if (chainDown) problems.push(orderProblem('CHAIN_UNAVAILABLE', null));

    const sig =
      sigCheck.signature && sigCheck.v !== null && sigCheck.r && sigCheck.s ? { signature: sigCheck.signature, v: sigCheck.v, r: sigCheck.r, s: sigCheck.s } : null;
    return { hash, recoveredSigner: recovered, valid: problems.length === 0, problems, parsed: p, sig, discovered, checkedBlock };
  }

  /** The dry run: every problem the order has, storing nothing. */
  async function validateOrder(raw: unknown): Promise<OrderValidation> {
    const { hash, recoveredSigner, valid, problems } = await assess(raw);
    return { hash, recoveredSigner, valid, problems };
  }

  async function insert(a: Assessment): Promise<Order> {
    const p = a.parsed!;
    const sig = a.sig!;
    const d = a.discovered;
    const now = deps.now();
    const paramsList = paramsToJson(p.params);
    let row: SubmitRow | undefined;
    try {
      [row] = await sql.query<SubmitRow>(
        `SELECT code, id::text AS id, created_at, updated_at
         FROM submit_order($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)`,
        [
          a.hash,
          p.collection,
          p.tokenId === null ? null : p.tokenId.toString(),
          p.isOrderAsk,
          p.signer,
          p.strategy,
          p.currency,
          p.amount.toString(),
          p.price.toString(),
          p.nonce.toString(),
          p.startTime.toString(),
          p.endTime.toString(),
          Number(p.minPercentageToAsk),
          p.encodedParams,
          JSON.stringify(paramsList),
          sig.signature,
          sig.v,
          sig.r,
          sig.s,
          a.checkedBlock,
          MAX_ORDERS_PER_NONCE,
          d?.type ?? null,
          d ? (d.owner ?? '0x0000000000000000000000000000000000000000') : null,
          d?.name ?? null,
          d?.symbol ?? null,
          now.toISOString(),
          // no floor point inside submit_order: recordFloor below runs the time catch-up first
          // (src/db/floor-sql.ts), which a row written here would skip
          [],
        ],
        'order_submission_insert',
      );
    } catch (err) {
      // Two identical orders racing cannot both pass the duplicate check (same signer and nonce,
      // same lock), but the unique hash index stays the last word.
      if ((err as { code?: string }).code === '23505') throw new OrderRejectedError([orderProblem('DUPLICATE_ORDER', null)], a.hash);
      throw err;
    }
    if (!row) throw new Error('submit_order returned no row');
    if (row.code !== 'OK') {
      const field = row.code === 'DUPLICATE_ORDER' ? null : 'nonce';
      throw new OrderRejectedError([orderProblem(row.code as OrderProblemCode, field)], a.hash);
    }
    const dec = (v: bigint) => new Prisma.Decimal(v.toString());
    return {
      id: BigInt(row.id!),
      hash: a.hash!,
      collectionAddress: p.collection,
      tokenId: p.tokenId === null ? null : dec(p.tokenId),
      isOrderAsk: p.isOrderAsk,
      signer: p.signer,
      strategy: p.strategy,
      currencyAddress: p.currency,
      amount: dec(p.amount),
      price: dec(p.price),
      nonce: dec(p.nonce),
      startTime: p.startTime,
      endTime: p.endTime,
      minPercentageToAsk: Number(p.minPercentageToAsk),
      params: p.encodedParams,
      paramsList: paramsList as Prisma.JsonValue,
      status: 'VALID',
      signature: sig.signature,
      v: sig.v,
      r: sig.r,
      s: sig.s,
      createdAt: new Date(row.created_at!),
      updatedAt: new Date(row.updated_at!),
      chainCheckedBlock: a.checkedBlock === null ? null : BigInt(a.checkedBlock),
    };
  }

  /** Verifies and stores one maker order; throws OrderRejectedError listing every problem. */
  async function createOrder(raw: unknown): Promise<Order> {
    const a = await assess(raw);
    if (!a.valid) throw new OrderRejectedError(a.problems, a.hash);
    await hooks?.beforeInsert?.(a.hash!);
    const order = await insert(a);
    // A live standard-sale listing can move the floor: record it after the time-driven floor
    // changes up to now, under the floor lock; concurrent asks share one write (stats.ts).
    if (order.isOrderAsk && network.strategies.standardSale.includes(order.strategy)) await stats.recordFloorSoon(order.collectionAddress);
    deps.events.publishOrderEvent({
      kind: 'CREATED',
      hash: order.hash,
      collection: order.collectionAddress,
      signer: order.signer,
      isOrderAsk: order.isOrderAsk,
      oldStatus: null,
      newStatus: order.status,
      at: deps.now().toISOString(),
      blockNumber: null,
    });
    return order;
  }

  /** Up to MAX_BATCH orders, each accepted or refused on its own, results in input order. */
  async function createOrders(raws: unknown[]): Promise<(Order | OrderRejectedError)[]> {
    const results: (Order | OrderRejectedError)[] = [];
    for (const raw of raws) {
      try {
        results.push(await createOrder(raw));
      } catch (err) {
        if (err instanceof OrderRejectedError) results.push(err);
        else throw err;
      }
    }
    return results;
  }

  return { validateOrder, createOrder, createOrders };
}

export type OrderSubmissionService = ReturnType<typeof createOrderSubmissionService>;
