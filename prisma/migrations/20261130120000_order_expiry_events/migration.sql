-- EXPIRED events in the market event log (docs/activity.md). An order expires on chain at the
-- first block whose timestamp passes its end time; the indexer batch that commits such a block
-- writes one STATUS_CHANGE row with cause EXPIRED for each order then VALID whose end time lies
-- in [the previous batch end's timestamp, this batch end's timestamp) (src/chain/indexer/expiry-sql.ts).
-- The lower bound is the timestamp of the cursor's batch end, kept here: after a reorg rolls the
-- cursor back to a kept batch end, the next batch expires again from that end's time, and the
-- events of the replaced blocks are retracted with the rest.
ALTER TABLE "indexed_blocks" ADD COLUMN "block_timestamp" BIGINT;
