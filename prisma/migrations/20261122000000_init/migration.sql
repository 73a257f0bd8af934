-- Initial schema: collections, orders, sales and what statistics are computed from.

-- CreateEnum
CREATE TYPE "CollectionType" AS ENUM ('ERC721', 'ERC1155');

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('VALID', 'CANCELLED', 'ERC_APPROVAL', 'ERC20_APPROVAL', 'ERC20_BALANCE', 'EXECUTED', 'EXPIRED', 'INVALID_OWNER');

-- CreateTable
CREATE TABLE "collections" (
    "address" VARCHAR(42) NOT NULL,
    "owner" VARCHAR(42) NOT NULL,
    "setter" VARCHAR(42),
    "admin" VARCHAR(42),
    "name" TEXT,
    "description" TEXT,
    "symbol" TEXT,
    "type" "CollectionType" NOT NULL,
    "website_link" TEXT,
    "alpha_link" TEXT,
    "bravo_link" TEXT,
    "charlie_link" TEXT,
    "delta_link" TEXT,
    "echo_link" TEXT,
    "foxtrot_link" TEXT,
    "is_verified" BOOLEAN NOT NULL DEFAULT false,
    "is_explicit" BOOLEAN NOT NULL DEFAULT false,
    "logo_uri" TEXT,
    "banner_uri" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "collections_pkey" PRIMARY KEY ("address")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" BIGSERIAL NOT NULL,
    "hash" CHAR(66) NOT NULL,
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0),
    "is_order_ask" BOOLEAN NOT NULL,
    "signer" VARCHAR(42) NOT NULL,
    "strategy" VARCHAR(42) NOT NULL,
    "currency_address" VARCHAR(42) NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "price" DECIMAL(78,0) NOT NULL,
    "nonce" DECIMAL(78,0) NOT NULL,
    "start_time" BIGINT NOT NULL,
    "end_time" BIGINT NOT NULL,
    "min_percentage_to_ask" INTEGER NOT NULL,
    "params" TEXT NOT NULL DEFAULT '',
    "params_list" JSONB NOT NULL DEFAULT '[]',
    "status" "OrderStatus" NOT NULL DEFAULT 'VALID',
    "signature" TEXT NOT NULL,
    "v" INTEGER NOT NULL,
    "r" CHAR(66) NOT NULL,
    "s" CHAR(66) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales" (
    "id" BIGSERIAL NOT NULL,
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0) NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "price" DECIMAL(78,0) NOT NULL,
    "currency_address" VARCHAR(42) NOT NULL,
    "buyer" VARCHAR(42) NOT NULL,
    "seller" VARCHAR(42) NOT NULL,
    "order_hash" CHAR(66),
    "strategy" VARCHAR(42),
    "is_taker_ask" BOOLEAN NOT NULL,
    "block_number" BIGINT NOT NULL,
    "tx_hash" CHAR(66) NOT NULL,
    "log_index" INTEGER NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sales_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sale_buckets" (
    "collection_address" VARCHAR(42) NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "volume" DECIMAL(90,0) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "sale_buckets_pkey" PRIMARY KEY ("collection_address","bucket_start")
);

-- CreateTable
CREATE TABLE "token_balances" (
    "collection_address" VARCHAR(42) NOT NULL,
    "token_id" DECIMAL(78,0) NOT NULL,
    "owner" VARCHAR(42) NOT NULL,
    "balance" DECIMAL(78,0) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "token_balances_pkey" PRIMARY KEY ("collection_address","token_id","owner")
);

-- CreateTable
CREATE TABLE "collection_supply" (
    "collection_address" VARCHAR(42) NOT NULL,
    "total_supply" DECIMAL(78,0) NOT NULL,
    "count_owners" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "collection_supply_pkey" PRIMARY KEY ("collection_address")
);

-- CreateTable
CREATE TABLE "floor_history" (
    "id" BIGSERIAL NOT NULL,
    "collection_address" VARCHAR(42) NOT NULL,
    "floor_price" DECIMAL(78,0),
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "floor_history_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "global_market_data" (
    "collection_address" VARCHAR(42) NOT NULL,
    "volume_24h_global" DECIMAL(90,0) NOT NULL,
    "floor_global" DECIMAL(78,0) NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "global_market_data_pkey" PRIMARY KEY ("collection_address")
);

-- CreateTable
CREATE TABLE "signer_nonce_state" (
    "signer" VARCHAR(42) NOT NULL,
    "min_nonce" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signer_nonce_state_pkey" PRIMARY KEY ("signer")
);

-- CreateIndex
CREATE INDEX "collections_is_verified_idx" ON "collections"("is_verified");
CREATE UNIQUE INDEX "orders_hash_key" ON "orders"("hash");
CREATE INDEX "orders_collection_address_is_order_ask_status_price_id_idx" ON "orders"("collection_address", "is_order_ask", "status", "price", "id");
CREATE INDEX "orders_collection_address_token_id_status_price_id_idx" ON "orders"("collection_address", "token_id", "status", "price", "id");
CREATE INDEX "orders_collection_address_id_idx" ON "orders"("collection_address", "id");
CREATE INDEX "orders_signer_nonce_idx" ON "orders"("signer", "nonce");
CREATE INDEX "orders_signer_id_idx" ON "orders"("signer", "id");
CREATE INDEX "orders_status_end_time_id_idx" ON "orders"("status", "end_time", "id");
CREATE INDEX "orders_price_id_idx" ON "orders"("price", "id");
CREATE INDEX "orders_end_time_id_idx" ON "orders"("end_time", "id");
CREATE INDEX "orders_strategy_id_idx" ON "orders"("strategy", "id");
CREATE UNIQUE INDEX "sales_tx_hash_log_index_key" ON "sales"("tx_hash", "log_index");
CREATE INDEX "sales_collection_address_timestamp_idx" ON "sales"("collection_address", "timestamp");
CREATE INDEX "sales_timestamp_idx" ON "sales"("timestamp");
CREATE INDEX "token_balances_owner_idx" ON "token_balances"("owner");
CREATE INDEX "floor_history_collection_address_at_idx" ON "floor_history"("collection_address", "at");
CREATE INDEX "global_market_data_volume_24h_global_idx" ON "global_market_data"("volume_24h_global");

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "sales" ADD CONSTRAINT "sales_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "sale_buckets" ADD CONSTRAINT "sale_buckets_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "token_balances" ADD CONSTRAINT "token_balances_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "collection_supply" ADD CONSTRAINT "collection_supply_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "floor_history" ADD CONSTRAINT "floor_history_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "global_market_data" ADD CONSTRAINT "global_market_data_collection_address_fkey" FOREIGN KEY ("collection_address") REFERENCES "collections"("address") ON DELETE RESTRICT ON UPDATE CASCADE;
