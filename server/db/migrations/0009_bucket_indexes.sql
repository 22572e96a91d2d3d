-- the text filter of the bucket screens needs trigram indexes (pg_trgm is a trusted extension: a database owner may create it)
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "records_bucket_idx";--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "overwrite" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "records_state_dateAdded_idx" ON "records" USING btree ("formula_id","state","date_added","id");--> statement-breakpoint
CREATE INDEX "records_state_dateProcessed_idx" ON "records" USING btree ("formula_id","state",coalesce("date_processed", '-infinity'::timestamptz),"id");--> statement-breakpoint
CREATE INDEX "records_state_score_idx" ON "records" USING btree ("formula_id","state",coalesce("score", -1),"id");--> statement-breakpoint
CREATE INDEX "records_state_errorDate_idx" ON "records" USING btree ("formula_id","state",coalesce("error_date", '-infinity'::timestamptz),"id");--> statement-breakpoint
CREATE INDEX "records_bucket_dateAdded_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),"date_added","id");--> statement-breakpoint
CREATE INDEX "records_bucket_dateProcessed_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("date_processed", '-infinity'::timestamptz),"id");--> statement-breakpoint
CREATE INDEX "records_bucket_score_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("score", -1),"id");--> statement-breakpoint
CREATE INDEX "records_bucket_errorDate_idx" ON "records" USING btree ("formula_id","bucket",coalesce("custom_bucket", ''),coalesce("error_date", '-infinity'::timestamptz),"id");--> statement-breakpoint
CREATE INDEX "records_search_trgm_idx" ON "records" USING gin (lower(jsonb_path_query_array("raw", '$.*')::text || ' ' || coalesce(jsonb_path_query_array("transformed", '$.*')::text, '')) gin_trgm_ops);