-- A collection's own metadata (ERC-7572 contractURI: name, description, image, banner_image,
-- external_link), read by the metadata worker and shown where an admin has set none
-- (docs/metadata.md "Collection metadata from contractURI"). Kept beside the rarity run;
-- `contract_filled` holds the values the worker wrote into the collection's row, so a later read
-- replaces only those, never a value an admin set.
ALTER TABLE "collection_metadata"
    ADD COLUMN "contract_due_at" TIMESTAMPTZ(3),
    ADD COLUMN "contract_lease_until" TIMESTAMPTZ(3),
    ADD COLUMN "contract_checked_at" TIMESTAMPTZ(3),
    ADD COLUMN "contract_uri" TEXT,
    ADD COLUMN "contract_status" "MetadataStatus",
    ADD COLUMN "contract_error_code" TEXT,
    ADD COLUMN "contract_error_message" TEXT,
    ADD COLUMN "contract_filled" JSONB;
CREATE INDEX "collection_metadata_contract_due_idx" ON "collection_metadata" ("contract_due_at") WHERE "contract_due_at" IS NOT NULL;
