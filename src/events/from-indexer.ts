// What subscribers see of the indexer's committed changes.
import type { IndexerEvent } from '../chain/indexer/indexer.js';
import type { EventBus } from './event-bus.js';

export function publishIndexerEvent(bus: EventBus, e: IndexerEvent, now: Date): void {
  // a rollback appended RETRACTED rows: wake the log's readers (status changes and sales wake them too)
  if (e.type === 'reorg') bus.publishLogAppended({ at: now.toISOString() });
  if (e.type === 'orderStatusChanged') {
    bus.publishOrderEvent({
      kind: e.newStatus === 'EXECUTED' ? 'EXECUTED' : 'STATUS_CHANGED',
      hash: e.orderHash,
      collection: e.collection,
      signer: e.signer,
      isOrderAsk: e.isOrderAsk,
      oldStatus: e.oldStatus,
      newStatus: e.newStatus,
      at: now.toISOString(),
      blockNumber: e.blockNumber,
    });
  } else if (e.type === 'sale') {
    const s = e.sale;
    bus.publishSale({
      collection: s.collection,
      tokenId: s.tokenId.toString(),
      amount: s.amount.toString(),
      price: s.price.toString(),
      currency: s.currency,
      buyer: s.buyer,
      seller: s.seller,
      orderHash: s.orderHash,
      txHash: s.txHash,
      logIndex: s.logIndex,
      blockNumber: Number(s.blockNumber),
      timestamp: s.timestamp.toISOString(),
    });
  }
}
