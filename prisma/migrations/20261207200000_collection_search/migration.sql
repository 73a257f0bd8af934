-- Collection search (Query.searchCollections, GET /api/v1/collections/search; the ranking rule is
-- src/services/collection-search.ts): a collection is found by its name or symbol, by prefix or
-- by trigram similarity (pg_trgm), so a misspelt name still finds it. The GIN trigram indexes
-- answer the search's filter (`%`, `<%` and LIKE 'prefix%' on lower(name) and lower(symbol)) with
-- an index read instead of comparing the query with every collection.
--
-- pg_trgm is a trusted extension (PostgreSQL 13 and later): a role with CREATE on the database
-- installs it without being a superuser. The embedded database (PGlite) has it only when it is
-- registered when PGlite is constructed (`extensions: { pg_trgm }`, src/db/pglite-database.ts and
-- src/db/pglite-thread-worker.mjs).
--
-- The indexes are on expressions, which prisma/schema.prisma cannot declare, so the schema does
-- not name them (nor the extension): a `prisma migrate diff` against it lists them as drift.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "collections_name_trgm_idx" ON "collections" USING GIN (lower("name") gin_trgm_ops);
CREATE INDEX "collections_symbol_trgm_idx" ON "collections" USING GIN (lower("symbol") gin_trgm_ops);

-- pg_trgm declares its functions and operators as cheap as comparing two integers (COST 1), while
-- each call builds the trigrams of both strings. Planned with that figure, a search among a few
-- thousand collections was a sequential scan comparing the query with every one of them (3,000
-- collections: 17-44 ms) rather than a read of the indexes above (0.2-2 ms). The search passes its
-- check of each candidate (the cut-offs) through this function, which returns its argument and
-- declares what the whole check of a row costs: 5.5 us measured for a name as the query, 17 us for
-- a 42-character address, where a cached page read (seq_page_cost 1) took about 7 us; COST 1000
-- is 2.5 page reads. With it, checking every row costs more than reading the indexes, and the
-- planner reads them; overstated, it only makes a table of a few dozen collections read its index.
CREATE FUNCTION collection_search_checked(matched BOOLEAN) RETURNS BOOLEAN
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000
  AS $$ BEGIN RETURN matched; END $$;
