-- Nonces that can no longer carry orders (spec 2.4 rule 2): executed by a fill, or cancelled
-- on the exchange (CancelMultipleOrders). Written by the chain indexer; read by order submission.

-- CreateEnum
CREATE TYPE "DeadNonceReason" AS ENUM ('EXECUTED', 'CANCELLED');

-- CreateTable
CREATE TABLE "dead_nonces" (
    "signer" VARCHAR(42) NOT NULL,
    "nonce" DECIMAL(78,0) NOT NULL,
    "reason" "DeadNonceReason" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_nonces_pkey" PRIMARY KEY ("signer","nonce")
);
