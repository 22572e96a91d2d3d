ALTER TABLE "formula_runs" ADD COLUMN "started_on" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "sent_run_id" uuid;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "sent_by" uuid;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_sent_run_id_formula_runs_id_fk" FOREIGN KEY ("sent_run_id") REFERENCES "public"."formula_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_sent_by_users_id_fk" FOREIGN KEY ("sent_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "records_outcome_dateAdded_idx" ON "records" USING btree ("formula_id","state","date_added","id") WHERE "state" in ('sent', 'omitted');--> statement-breakpoint
CREATE INDEX "records_outcome_dateProcessed_idx" ON "records" USING btree ("formula_id","state",coalesce("date_processed", '-infinity'::timestamptz),"id") WHERE "state" in ('sent', 'omitted');