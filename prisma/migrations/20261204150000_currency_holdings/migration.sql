-- What the indexer last read on chain of a bid maker's currency (WETH): the balance and the
-- allowance to the exchange, and the block it read them at. Written in the transaction that writes
-- the statuses derived from the same reads (src/chain/indexer/currency-holdings-sql.ts), so
-- Order.fillability can say how much an ERC20_BALANCE or ERC20_APPROVAL bid is missing.
CREATE TABLE "currency_holdings" (
    "signer" VARCHAR(42) NOT NULL,
    "currency" VARCHAR(42) NOT NULL,
    "balance" DECIMAL(78,0) NOT NULL,
    "allowance" DECIMAL(78,0) NOT NULL,
    "block_number" BIGINT NOT NULL,
    CONSTRAINT "currency_holdings_pkey" PRIMARY KEY ("signer", "currency")
);
