// Order submission (spec 2.3-2.5, issue 3): one assessment used by the dry run (validateOrder)
// and by createOrder. The hash is computed here, never taken from the client. Nothing is
// written for a refused order; an accepted one is inserted under a per-(signer, nonce)
// transaction lock so the 20-orders-per-nonce cap holds under concurrent submissions.
import type { DiscoveredCollection } from '../chain/chain-reader.js';
import { ChainUnavailableError } from '../chain/chain-reader.js';
import { computeOrderHash, exchangeDomain } from '../domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder, type ParsedMakerOrderInput } from '../domain/maker-order-input.js';
import { paramsToJson } from '../domain/order-params.js';
import { orderProblem, type OrderProblem } from '../domain/order-problems.js';
import { checkOrderRules } from '../domain/order-rules.js';
import { ECDSA_PROBLEM_CODES } from '../domain/order-signature.js';
import { strategyKind } from '../domain/networks.js';
import type { Order } from '../generated/prisma/client.js';
import { nowSeconds, type ServiceDeps } from './deps.js';
import { OrderRejectedError } from './order-rejected.js';
import { inlineSignatureVerifier } from './signature-pool.js';
import type { StatsService } from './stats.js';

/** Spec 2.4 rule 3 / spec 8. */
export const MAX_ORDERS_PER_NONCE = 20;
/** createOrders: the most orders one call may carry. */
export const MAX_BATCH = 100;

export interface OrderValidation {
  /** the struct hash (spec 2.5); null when the fields do not parse */
  hash: string | null;
  /** the address the signature recovers to; null when it cannot be recovered */
  signer: string | null;
  valid: boolean;
  problems: OrderProblem[];
}

interface Assessment extends OrderValidation {
  parsed: ParsedMakerOrderInput | null;
  sig: { signature: string; v: number; r: string; s: string } | null;
  /** a collection found on chain, to register with the order */
  discovered: DiscoveredCollection | null;
}

type StateRow = { ctype: 'ERC721' | 'ERC1155' | null; min_nonce: string | null; dead: boolean; same_nonce: number; duplicate: boolean };

export function createOrderSubmissionService(deps: ServiceDeps, stats: StatsService) {
  const { prisma, sql } = deps.db;
  const { network, chain } = deps;
  const domain = exchangeDomain(network.chainId, network.exchange);
  const signatures = deps.signatures ?? inlineSignatureVerifier;

  async function assess(raw: unknown): Promise<Assessment> {
    const parse = parseMakerOrderInput(raw);
    if (!parse.ok) return { hash: null, signer: null, valid: false, problems: parse.problems, parsed: null, sig: null, discovered: null };
    const p = parse.value;
    const order = toSignedMakerOrder(p);
    const hash = computeOrderHash(order);
    const problems: OrderProblem[] = [];
    const sigCheck = await signatures.check(order, p.signature, domain);

    // Database state for the rules below, in one statement.
    const [state] = await sql.query<StateRow>(
      `SELECT (SELECT type::text FROM collections WHERE address = $1) AS ctype,
              (SELECT min_nonce::text FROM signer_nonce_state WHERE signer = $2) AS min_nonce,
              (EXISTS (SELECT 1 FROM dead_nonces WHERE signer = $2 AND nonce = $3)
                OR EXISTS (SELECT 1 FROM orders WHERE signer = $2 AND nonce = $3 AND status = 'EXECUTED')) AS dead,
              (SELECT COUNT(*) FROM orders WHERE signer = $2 AND nonce = $3)::int AS same_nonce,
              EXISTS (SELECT 1 FROM orders WHERE hash = $4) AS duplicate`,
      [p.collection, p.signer, p.nonce.toString(), hash],
    );
    let collectionType = state!.ctype;
    let discovered: DiscoveredCollection | null = null;
    let chainDown = false;
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
    if (chain && collectionType) {
      const kind = strategyKind(network, p.strategy);
      if (p.isOrderAsk && p.tokenId !== null) {
        const manager = collectionType === 'ERC721' ? network.transferManagerERC721 : network.transferManagerERC1155;
        const [holds, approved] = await Promise.all([
          onChain(() => chain.holds(p.collection, collectionType!, p.tokenId!, p.signer, p.amount)),
          manager ? onChain(() => chain.isApprovedForAll(p.collection, p.signer, manager)) : Promise.resolve(false),
        ]);
        if (holds === false) problems.push(orderProblem('NOT_OWNER', 'tokenId'));
        if (approved === false) problems.push(orderProblem('NOT_APPROVED', 'collection'));
      } else if (!p.isOrderAsk && kind !== null) {
        const weth = await onChain(() => chain.erc20BalanceAndAllowance(network.weth, p.signer, network.exchange));
        if (weth && weth.balance < p.price) problems.push(orderProblem('INSUFFICIENT_WETH_BALANCE', 'price'));
        if (weth && weth.allowance < p.price) problems.push(orderProblem('INSUFFICIENT_WETH_ALLOWANCE', 'price'));
      }
    }
    if (chainDown) problems.push(orderProblem('CHAIN_UNAVAILABLE', null));

    const sig =
      sigCheck.signature && sigCheck.v !== null && sigCheck.r && sigCheck.s ? { signature: sigCheck.signature, v: sigCheck.v, r: sigCheck.r, s: sigCheck.s } : null;
    return { hash, signer: recovered, valid: problems.length === 0, problems, parsed: p, sig, discovered };
  }

  /** The dry run: every problem the order has, storing nothing. */
  async function validateOrder(raw: unknown): Promise<OrderValidation> {
    const { hash, signer, valid, problems } = await assess(raw);
    return { hash, signer, valid, problems };
  }

  async function insert(a: Assessment): Promise<Order> {
    const p = a.parsed!;
    const lockKey = `${p.signer}:${p.nonce}`;
    try {
      return await prisma.$transaction(async (tx) => {
        // Serialises submissions on one (signer, nonce); the count below then sees every
        // committed sibling (READ COMMITTED takes a new snapshot per statement).
        await tx.$executeRaw`SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
        const siblings = await tx.order.count({ where: { signer: p.signer, nonce: p.nonce.toString() } });
        if (siblings >= MAX_ORDERS_PER_NONCE) throw new OrderRejectedError([orderProblem('NONCE_CAP_REACHED', 'nonce')], a.hash);
        // Again under the lock: the indexer may have killed this nonce since the assessment.
        const dead = await tx.deadNonce.findUnique({ where: { signer_nonce: { signer: p.signer, nonce: p.nonce.toString() } }, select: { reason: true } });
        const min = await tx.signerNonceState.findUnique({ where: { signer: p.signer }, select: { minNonce: true } });
        if (dead) throw new OrderRejectedError([orderProblem('NONCE_USED', 'nonce')], a.hash);
        if (min && p.nonce < BigInt(min.minNonce.toFixed())) throw new OrderRejectedError([orderProblem('NONCE_TOO_LOW', 'nonce')], a.hash);
        if (a.discovered) {
          const d = a.discovered;
          await tx.collection.upsert({
            where: { address: d.address },
            update: {},
            create: { address: d.address, type: d.type, owner: d.owner ?? '0x0000000000000000000000000000000000000000', name: d.name, symbol: d.symbol },
          });
        }
        return tx.order.create({
          data: {
            hash: a.hash!,
            collectionAddress: p.collection,
            tokenId: p.tokenId === null ? null : p.tokenId.toString(),
            isOrderAsk: p.isOrderAsk,
            signer: p.signer,
            strategy: p.strategy,
            currencyAddress: p.currency,
            amount: p.amount.toString(),
            price: p.price.toString(),
            nonce: p.nonce.toString(),
            startTime: p.startTime,
            endTime: p.endTime,
            minPercentageToAsk: Number(p.minPercentageToAsk),
            params: p.encodedParams,
            paramsList: paramsToJson(p.params),
            status: 'VALID',
            signature: a.sig!.signature,
            v: a.sig!.v,
            r: a.sig!.r,
            s: a.sig!.s,
          },
        });
      });
    } catch (err) {
      // Two identical orders racing: the unique hash lets one in.
      if ((err as { code?: string }).code === 'P2002') throw new OrderRejectedError([orderProblem('DUPLICATE_ORDER', null)], a.hash);
      throw err;
    }
  }

  /** Verifies and stores one maker order; throws OrderRejectedError listing every problem. */
  async function createOrder(raw: unknown): Promise<Order> {
    const a = await assess(raw);
    if (!a.valid) throw new OrderRejectedError(a.problems, a.hash);
    const order = await insert(a);
    if (order.isOrderAsk) await stats.recordFloor(order.collectionAddress);
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
