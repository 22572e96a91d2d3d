ALTER TABLE "formula_runs" ADD COLUMN "params" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "formula_runs" ADD COLUMN "job_id" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "next_run_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "last_run_id" uuid;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "score" integer;--> statement-breakpoint
ALTER TABLE "records" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "email_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "phone_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "first_name_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "last_name_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "postal_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "address_key" text;--> statement-breakpoint
ALTER TABLE "uploads" ADD COLUMN "formula_id" uuid;--> statement-breakpoint
ALTER TABLE "uploads" ADD COLUMN "file_key" text;--> statement-breakpoint
CREATE INDEX "formulas_due_idx" ON "formulas" USING btree ("next_run_at") WHERE "formulas"."next_run_at" is not null;--> statement-breakpoint
CREATE INDEX "records_state_idx" ON "records" USING btree ("formula_id","state","id");--> statement-breakpoint
CREATE INDEX "sandbox_constituents_email_key_idx" ON "sandbox_constituents" USING btree ("tenant_id","email_key") WHERE "sandbox_constituents"."email_key" is not null;--> statement-breakpoint
CREATE INDEX "sandbox_constituents_phone_key_idx" ON "sandbox_constituents" USING btree ("tenant_id","phone_key") WHERE "sandbox_constituents"."phone_key" is not null;--> statement-breakpoint
CREATE INDEX "sandbox_constituents_last_name_key_idx" ON "sandbox_constituents" USING btree ("tenant_id","last_name_key","first_name_key");--> statement-breakpoint
CREATE INDEX "sandbox_constituents_postal_key_idx" ON "sandbox_constituents" USING btree ("tenant_id","postal_key","last_name_key") WHERE "sandbox_constituents"."postal_key" is not null;--> statement-breakpoint
CREATE INDEX "sandbox_constituents_address_key_idx" ON "sandbox_constituents" USING btree ("tenant_id","address_key") WHERE "sandbox_constituents"."address_key" is not null;--> statement-breakpoint
ALTER TABLE "formulas" DROP COLUMN "status";