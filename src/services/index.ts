// All use cases, built once per process from the database, configuration and network.
import { createActivityService } from './activity.js';
import { createCollectionDiscoveryService } from './collection-discovery.js';
import { createCollectionMarketService } from './collection-market.js';
import { createCollectionSearchService } from './collection-search.js';
import { createCollectionService } from './collections.js';
import type { ServiceDeps } from './deps.js';
import { createFulfillmentService } from './fulfillment.js';
import { createHealthService } from './health.js';
import { createIndexedBlockService } from './indexed-block.js';
import { createIndexerStatusService } from './indexer-status.js';
import { createListingRewardsService } from './listing-rewards.js';
import { createMarketEventStreamService } from './market-event-stream.js';
import { createNonceService } from './nonces.js';
import { createOrderFillabilityService } from './order-fillability.js';
import { createOrderService } from './orders.js';
import { createOrderSubmissionService } from './order-submission.js';
import { createOverviewService } from './overview.js';
import { createReadFallbacks } from './read-fallbacks.js';
import { createReadTemplates } from './read-templates.js';
import { createSaleHistoryService } from './sale-history.js';
import { createKeptRankingKeys } from './kept-ranking-keys.js';
import { createTraitFloorEvents } from './trait-floor-events.js';
import { createSalesService } from './sales.js';
import { createStatsService } from './stats.js';
import { observeSubmissions } from './submission-outcomes.js';
import { createWebhookService } from './webhook-endpoints.js';
import { createTokenMetadataService } from './token-metadata.js';
import { createMediaService } from './media/index.js';

export function createServices(deps: ServiceDeps) {
  const stats = createStatsService(deps);
  return {
    deps,
    now: deps.now,
    orders: createOrderService(deps),
    collections: createCollectionService(deps),
    nonces: createNonceService(deps),
    stats,
    submissions: observeSubmissions(createOrderSubmissionService(deps, stats)),
    sales: createSalesService(deps),
    listingRewards: createListingRewardsService(deps),
    fillability: createOrderFillabilityService(deps),
    health: createHealthService(deps),
    indexer: createIndexerStatusService(deps),
    indexedBlock: createIndexedBlockService(deps),
    overview: createOverviewService(deps),
    collectionDiscovery: createCollectionDiscoveryService(deps),
    collectionSearch: createCollectionSearchService(deps),
    keptRankingKeys: createKeptRankingKeys(deps),
    collectionMarket: createCollectionMarketService(deps),
    saleHistory: createSaleHistoryService(deps),
    fulfillment: createFulfillmentService(deps),
    activity: createActivityService(deps),
    eventStream: createMarketEventStreamService(deps),
    webhooks: createWebhookService(deps),
    tokenMetadata: createTokenMetadataService(deps),
    traitFloors: createTraitFloorEvents(deps),
    media: createMediaService(deps),
    readFallbacks: createReadFallbacks(),
    readTemplates: createReadTemplates(),
  };
}

export type Services = ReturnType<typeof createServices>;
