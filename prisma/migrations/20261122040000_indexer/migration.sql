-- Chain indexer (issue 4): where it stopped, which recent blocks it saw, and journals of the
-- effects it applied, so that blocks replaced by a reorg can be rolled back exactly.
-- One database follows one chain. Journals have no foreign keys: they are bookkeeping of the
-- indexer, pruned or rewritten by it, and must not block anything else.

-- CreateEnum
CREATE TYPE "NonceEventKind" AS ENUM ('EXECUTED', 'CANCELLED', 'MIN_NONCE');

-- CreateTable
-- The last block whose effects are committed, with its hash, per stream (one row today). A restart
-- resumes at block_number + 1; chain_id stops a database from being resumed against another chain.
CREATE TABLE "indexer_cursor" (
    "stream" VARCHAR(64) NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "block_hash" CHAR(66) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "indexer_cursor_pkey" PRIMARY KEY ("stream")
);

-- CreateTable
-- The last block of each recent batch and its hash. After a reorg the highest of these still on
-- the chain is where to roll back to. Only batch ends are kept, so a rollback never cuts a batch
-- in half (a batch's status re-derivations are journaled at its last block). Pruned to a window.
CREATE TABLE "indexed_blocks" (
    "number" BIGINT NOT NULL,
    "hash" CHAR(66) NOT NULL,

    CONSTRAINT "indexed_blocks_pkey" PRIMARY KEY ("number")
);

-- CreateTable
-- Every order status the indexer changed, with the status before: rolling back blocks restores,
-- per order, the old status of its earliest change above the fork. Pruned with indexed_blocks.
CREATE TABLE "order_status_changes" (
    "id" BIGSERIAL NOT NULL,
    "order_hash" CHAR(66) NOT NULL,
    "old_status" "OrderStatus" NOT NULL,
    "new_status" "OrderStatus" NOT NULL,
    "block_number" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
-- Nonce effects of exchange events (a fill uses its nonce, CancelMultipleOrders kills nonces,
-- CancelAllOrders raises the minimum; for MIN_NONCE `nonce` holds the new minimum).
-- dead_nonces and signer_nonce_state are maintained from these rows and recomputed from the ones
-- left after a rollback, so these rows are kept (not pruned). A fill's row also names the sale
-- (same tx_hash, log_index) so a rollback removes exactly the sales the indexer wrote.
CREATE TABLE "nonce_events" (
    "signer" VARCHAR(42) NOT NULL,
    "kind" "NonceEventKind" NOT NULL,
    "nonce" DECIMAL(78,0) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "tx_hash" CHAR(66) NOT NULL,
    "log_index" INTEGER NOT NULL,

    CONSTRAINT "nonce_events_pkey" PRIMARY KEY ("tx_hash","log_index","nonce")
);

-- CreateTable
-- NFT transfers of known collections (one row per id of a TransferBatch): the balance deltas
-- applied to token_balances and collection_supply, reversed on rollback. Pruned with indexed_blocks.
CREATE TABLE "token_transfers" (
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0) NOT NULL,
    "from_address" VARCHAR(42) NOT NULL,
    "to_address" VARCHAR(42) NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "block_number" BIGINT NOT NULL,
    "tx_hash" CHAR(66) NOT NULL,
    "log_index" INTEGER NOT NULL,
    "batch_index" INTEGER NOT NULL,

    CONSTRAINT "token_transfers_pkey" PRIMARY KEY ("tx_hash","log_index","batch_index")
);

-- CreateIndex
CREATE INDEX "order_status_changes_block_number_idx" ON "order_status_changes"("block_number");
CREATE INDEX "nonce_events_block_number_idx" ON "nonce_events"("block_number");
CREATE INDEX "nonce_events_signer_nonce_idx" ON "nonce_events"("signer", "nonce");
CREATE INDEX "token_transfers_block_number_idx" ON "token_transfers"("block_number");
