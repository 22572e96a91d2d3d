ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sessions_valid_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "pending_email" text;--> statement-breakpoint
ALTER TABLE "activity_events" ADD COLUMN "coalesce_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "activity_events_coalesce_idx" ON "activity_events" USING btree ("tenant_id","coalesce_key");--> statement-breakpoint
CREATE INDEX "oidc_payloads_account_idx" ON "oidc_payloads" USING btree (("payload"->>'accountId'));