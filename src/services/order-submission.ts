// Order submission (spec 2.3-2.5): one assessment used by the dry run (validateOrder)
// and by createOrder. The hash is computed here, never taken from the client. Nothing is
// written for a refused order. Accepted ones are stored by the SQL function submit_orders
// (src/db/sql/submit_orders.sql), many concurrent submissions per call and per commit
// (src/db/write-batcher.ts): under a per-(signer, nonce) lock it checks the nonce rules of
// src/domain/nonce-rules.ts (the duplicate and the 20-orders cap among them), and inserts.
//
// createOrder's fast path: the rules that need no database (shape, signature, order
// rules with the collection's type from a cache) and the chain checks run first, and the nonce
// state is left to submit_orders, which checks it under the lock anyway. Only a refusal takes the
// full assessment, the dry run's, so a refused order lists exactly the problems it always did.
//
// The submission/indexing race: the chain checks are pinned to one block B, and the
// row stores B (chain_checked_block) until an indexer batch has evaluated it against the chain at
// or after every later block (src/chain/indexer/unsettled-orders.ts). The insert and a batch's
// writes are serialised by one advisory lock (shared here, exclusive in the batch), so nonce
// facts committed by a batch are seen by the re-checks, and a row committed first is seen by the
// batch's statements.
import type { DiscoveredCollection } from '../chain/chain-reader.js';
import { ChainUnavailableError } from '../chain/chain-unavailable-error.js';
import { computeOrderHash, exchangeDomain } from '../domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder, type ParsedMakerOrderInput } from '../domain/maker-order-input.js';
import { paramsToJson } from '../domain/order-params.js';
import { orderProblem, type OrderProblem } from '../domain/order-problems.js';
import type { OrderWarning } from '../domain/order-warnings.js';
import { checkOrderRules } from '../domain/order-rules.js';
import { checkNonceRules, nonceProblem } from '../domain/nonce-rules.js';
import { ECDSA_PROBLEM_CODES } from '../domain/order-signature.js';
import { strategyKind, transferManagerFor } from '../domain/networks.js';
import { Prisma, type Order } from '../generated/prisma/client.js';
import { submitOrdersIsolated, type OrderInsert, type SubmitResult } from '../db/submit-orders-sql.js';
import { createWriteBatcher } from '../db/write-batcher.js';
import type { StatsService } from './stats.js';
import { nowSeconds, type ServiceDeps } from './deps.js';
import { OrderRejectedError } from './order-rejected.js';
import { createOrderWarningsService } from './order-warnings.js';
import { inlineSignatureVerifier } from './signature-pool.js';

/** createOrders: the most orders one call may carry. */
export const MAX_BATCH = 100;

export interface OrderValidation {
  /** the struct hash (spec 2.5); null when the fields do not parse */
  hash: string | null;
  /** the address the signature recovers to (the contract signer when EIP-1271 accepts it); null when nothing recovers */
  recoveredSigner: string | null;
  valid: boolean;
  problems: OrderProblem[];
  /** what the order meets on the market, never a refusal (src/domain/order-warnings.ts); empty when the fields do not parse */
  warnings: OrderWarning[];
}

interface Assessment extends Omit<OrderValidation, 'warnings'> {
  parsed: ParsedMakerOrderInput | null;
  sig: { signature: string; v: number; r: string; s: string } | null;
  /** a collection found on chain, to register with the order */
  discovered: DiscoveredCollection | null;
  /** the block the chain checks read at; null when no chain is configured */
  checkedBlock: number | null;
  collectionType?: CollectionType | null;
}

type CollectionType = 'ERC721' | 'ERC1155';

/** Inserts in flight at once: one batch committing while the next one fills (measured 1/2/4 in bench/submit-bench.ts). */
const INSERT_BATCHES_IN_FLIGHT = 2;
/** The most orders one submit_orders call carries. */
const INSERT_BATCH_MAX = 128;
/** Collection types remembered (a type only changes by an operator, and submit_orders re-checks it). */
const COLLECTION_TYPE_CACHE_MAX = 100_000;

type StateRow = { ctype: 'ERC721' | 'ERC1155' | null; min_nonce: string | null; dead: boolean; same_nonce: number; duplicate: boolean };

export function createOrderSubmissionService(deps: ServiceDeps, stats: Pick<StatsService, 'recordFloorSoon'>) {
  const warnings = createOrderWarningsService(deps);
  const { sql } = deps.db;
  const { network, chain } = deps;
  const domain = exchangeDomain(network.chainId, network.exchange);
  const signatures = deps.signatures ?? inlineSignatureVerifier;
  const hooks = deps.submissionHooks;

  // address -> type of collections seen in the database; entries go when submit_orders says the
  // type changed, and all at once when the cache is full
  const collectionTypes = new Map<string, CollectionType>();
  const rememberType = (address: string, type: CollectionType | null) => {
    if (!type) return;
    if (collectionTypes.size >= COLLECTION_TYPE_CACHE_MAX) collectionTypes.clear();
    collectionTypes.set(address, type);
  };

  /**
   * mode 'full': every rule, the nonce state read from the database (the dry run, and every
   * refusal). mode 'fast': the nonce rules, the duplicate and the cap are left to submit_orders,
   * and a collection type known to the cache is not read again.
   */
  async function assess(raw: unknown, mode: 'full' | 'fast' = 'full'): Promise<Assessment> {
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

    // Database state for the rules below, in one statement (the fast path skips it when the
    // collection's type is cached: submit_orders checks the rest under its lock).
    const cachedType = mode === 'fast' ? collectionTypes.get(p.collection) : undefined;
    let state: StateRow | undefined;
    if (!cachedType) {
      [state] = await sql.query<StateRow>(
        `SELECT (SELECT type::text FROM collections WHERE address = $1) AS ctype,
                (SELECT min_nonce::text FROM signer_nonce_state WHERE signer = $2) AS min_nonce,
                (EXISTS (SELECT 1 FROM dead_nonces WHERE signer = $2 AND nonce = $3)
                  OR EXISTS (SELECT 1 FROM orders WHERE signer = $2 AND nonce = $3 AND status = 'EXECUTED')) AS dead,
                (SELECT COUNT(*) FROM orders WHERE signer = $2 AND nonce = $3)::int AS same_nonce,
                EXISTS (SELECT 1 FROM orders WHERE hash = $4) AS duplicate`,
        [p.collection, p.signer, p.nonce.toString(), hash],
        'order_submission_state',
      );
      rememberType(p.collection, state!.ctype);
    }
    let collectionType = cachedType ?? state!.ctype;
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

    // Nonce rules (spec 2.4) and duplicates (the fast path: in submit_orders).
    if (mode === 'full' && state) {
      const minNonce = state.min_nonce === null ? null : BigInt(state.min_nonce);
      problems.push(...checkNonceRules(p.nonce, { minNonce, nonceUsed: state.dead, ordersOnNonce: state.same_nonce, duplicate: state.duplicate }));
    }

    // Chain state: the asset and approvals behind the order (refused at submission, like v1).
    if (chain && collectionType && checkedBlock !== null) {
      const kind = strategyKind(network, p.strategy);
      if (p.isOrderAsk && p.tokenId !== null) {
        const manager = transferManagerFor(network, collectionType);
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
    return { hash, recoveredSigner: recovered, valid: problems.length === 0, problems, parsed: p, sig, discovered, checkedBlock, collectionType };
  }

  /** The dry run: every problem the order has, storing nothing. */
  async function validateOrder(raw: unknown): Promise<OrderValidation> {
    const { hash, recoveredSigner, valid, problems, parsed } = await assess(raw);
    return { hash, recoveredSigner, valid, problems, warnings: parsed ? await warnings.warningsFor(parsed) : [] };
  }

  const runInserts = (items: readonly OrderInsert[]) => submitOrdersIsolated(sql, items);
  const inserts = createWriteBatcher(runInserts, { maxInFlight: INSERT_BATCHES_IN_FLIGHT, maxBatch: INSERT_BATCH_MAX });

  function toInsert(a: Assessment): OrderInsert {
    const d = a.discovered;
    return {
      hash: a.hash!,
      order: a.parsed!,
      paramsJson: JSON.stringify(paramsToJson(a.parsed!.params)),
      sig: a.sig!,
      checkedBlock: a.checkedBlock,
      collectionType: a.collectionType!,
      discovered: d ? { owner: d.owner ?? null, name: d.name ?? null, symbol: d.symbol ?? null } : null,
    };
  }

  function storedOrder(a: Assessment, row: SubmitResult): Order {
    const p = a.parsed!;
    const sig = a.sig!;
    const dec = (v: bigint) => new Prisma.Decimal(v.toString());
    return {
      id: row.id!,
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
      paramsList: paramsToJson(p.params) as Prisma.JsonValue,
      status: 'VALID',
      signature: sig.signature,
      v: sig.v,
      r: sig.r,
      s: sig.s,
      createdAt: row.createdAt!,
      updatedAt: row.updatedAt!,
      chainCheckedBlock: a.checkedBlock === null ? null : BigInt(a.checkedBlock),
    };
  }

  /** The fast assessment, or the full one when the fast one found a problem (its exact list). */
  async function assessForCreate(raw: unknown): Promise<Assessment> {
    const a = await assess(raw, 'fast');
    if (a.valid) return a;
    const full = await assess(raw, 'full');
    if (!full.valid) throw new OrderRejectedError(full.problems, full.hash);
    return full; // the cached collection type was stale
  }

  /**
   * What submit_orders answered, made final: a refusal is re-assessed in full (so it lists every
   * problem, as the dry run would); a changed collection type is tried once more with the new one.
   */
  async function settle(raw: unknown, a: Assessment, result: SubmitResult | Error, retry: boolean): Promise<Order> {
    if (result instanceof Error) throw result;
    if (result.code === 'OK') {
      const order = storedOrder(a, result);
      await afterInsert(order);
      return order;
    }
    collectionTypes.delete(a.parsed!.collection);
    const full = await assess(raw, 'full');
    if (!full.valid) throw new OrderRejectedError(full.problems, full.hash);
    if (result.code === 'COLLECTION_CHANGED' && retry) return settle(raw, full, await inserts.add(toInsert(full)), false);
    const problem = result.code === 'COLLECTION_CHANGED' ? orderProblem('UNKNOWN_COLLECTION', 'collection') : nonceProblem(result.code);
    throw new OrderRejectedError([problem], a.hash);
  }

  async function afterInsert(order: Order): Promise<void> {
    // A live standard-sale listing can move the floor, a bid the best bid: record them after the
    // time-driven changes up to now, under the floor lock; concurrent orders share one write (stats.ts).
    // The listing's answer waits for it (stats read right after show the floor); a bid's does not:
    // the best bid a client reads is computed from the orders, only its BEST_BID_CHANGE event waits
    // for the write, and a write that fails is made good by the next one for the collection.
    if (order.isOrderAsk && network.strategies.standardSale.includes(order.strategy)) await stats.recordFloorSoon(order.collectionAddress);
    else if (!order.isOrderAsk) void stats.recordFloorSoon(order.collectionAddress).catch(() => {});
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
  }

  /** Verifies and stores one maker order; throws OrderRejectedError listing every problem. */
  async function createOrder(raw: unknown): Promise<Order> {
    const a = await assessForCreate(raw);
    await hooks?.beforeInsert?.(a.hash!);
    return settle(raw, a, await inserts.add(toInsert(a)), true);
  }

  /**
   * Up to MAX_BATCH orders, each accepted or refused on its own, results in input order. They are
   * assessed concurrently and stored by one submit_orders call, which decides orders on one nonce
   * in input order.
   */
  async function createOrders(raws: unknown[]): Promise<(Order | OrderRejectedError)[]> {
    const assessed = await Promise.all(raws.map((raw) => assessForCreate(raw).catch((err: unknown) => err)));
    const ready = assessed.flatMap((a, i) => (a instanceof Error ? [] : [{ i, a: a as Assessment }]));
    for (const { a } of ready) await hooks?.beforeInsert?.(a.hash!);
    const stored = ready.length ? await runInserts(ready.map(({ a }) => toInsert(a))) : [];
    const results: (Order | OrderRejectedError | unknown)[] = [...assessed];
    await Promise.all(
      ready.map(({ i, a }, k) =>
        settle(raws[i], a, stored[k]!, true).then(
          (order) => (results[i] = order),
          (err: unknown) => (results[i] = err),
        ),
      ),
    );
    for (const r of results) if (!(r instanceof OrderRejectedError) && r instanceof Error) throw r;
    return results as (Order | OrderRejectedError)[];
  }

  return { validateOrder, createOrder, createOrders, warningsForStored: warnings.warningsForStored };
}

export type OrderSubmissionService = ReturnType<typeof createOrderSubmissionService>;
