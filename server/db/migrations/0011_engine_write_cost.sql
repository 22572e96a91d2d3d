-- the bucket screens' sort and text indexes hold only the records a screen lists: sending and sent records, updated twice on their way out, skip them
DROP INDEX "records_state_dateAdded_idx";--> statement-breakpoint
DROP INDEX "records_state_dateProcessed_idx";--> statement-breakpoint
DROP INDEX "records_state_score_idx";--> statement-breakpoint
DROP INDEX "records_state_errorDate_idx";--> statement-breakpoint
DROP INDEX "records_bucket_dateAdded_idx";--> statement-breakpoint
DROP INDEX "records_bucket_dateProcessed_idx";--> statement-breakpoint
DROP INDEX "records_bucket_score_idx";--> statement-breakpoint
DROP INDEX "records_bucket_errorDate_idx";--> statement-breakpoint
DROP INDEX "records_search_trgm_idx";--> statement-breakpoint
CREATE INDEX "records_state_dateAdded_idx" ON "records" USING btree ("formula_id","state","date_added","id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_state_dateProcessed_idx" ON "records" USING btree ("formula_id","state",coalesce("date_processed", '-infinity'::timestamptz),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_state_score_idx" ON "records" USING btree ("formula_id","state",coalesce("score", -1),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_state_errorDate_idx" ON "records" USING btree ("formula_id","state",coalesce("error_date", '-infinity'::timestamptz),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_bucket_dateAdded_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),"date_added","id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_bucket_dateProcessed_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("date_processed", '-infinity'::timestamptz),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_bucket_score_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("score", -1),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_bucket_errorDate_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("error_date", '-infinity'::timestamptz),"id") WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');--> statement-breakpoint
CREATE INDEX "records_search_trgm_idx" ON "records" USING gin (lower(jsonb_path_query_array("raw", '$.*')::text || ' ' || coalesce(jsonb_path_query_array("transformed", '$.*')::text, '')) gin_trgm_ops) WHERE "state" in ('ready', 'needs-attention') or "bucket" in ('exception', 'formula-exception', 'validation-exception', 'relationship-match');