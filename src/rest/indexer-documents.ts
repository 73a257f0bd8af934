// The GraphQL document behind GET /api/v1/indexer/status.
import { graphql } from '../gql/index.js';

export const RestIndexerStatusDocument = graphql(`
  query RestIndexerStatus {
    indexerStatus {
      chainId
      headBlock
      headTimestamp
      indexedBlock
      indexedBlockTimestamp
      confirmations
      lagBlocks
      lagSeconds
      lastEventBlock
      lastEventTimestamp
      updatedAt
      running
      holdsLease
    }
  }
`);
