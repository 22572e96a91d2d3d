ALTER TABLE "records" ADD COLUMN "decided" text;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "corrections" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "copy_keys" text[];--> statement-breakpoint
ALTER TABLE "uploads" ADD COLUMN "content_hash" text;--> statement-breakpoint
CREATE INDEX "records_copy_keys_idx" ON "records" USING gin ("copy_keys") WHERE "records"."copy_keys" is not null;--> statement-breakpoint
CREATE INDEX "uploads_formula_hash_idx" ON "uploads" USING btree ("formula_id","content_hash") WHERE "uploads"."formula_id" is not null and "uploads"."content_hash" is not null;