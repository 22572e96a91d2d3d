DROP INDEX "sandbox_addresses_postcode_idx";--> statement-breakpoint
DROP INDEX "sandbox_constituents_name_idx";--> statement-breakpoint
DROP INDEX "sandbox_emails_address_idx";--> statement-breakpoint
DROP INDEX "sandbox_phones_number_idx";--> statement-breakpoint
DROP INDEX "activity_events_tenant_at_idx";--> statement-breakpoint
DROP INDEX "activity_events_formula_at_idx";--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "keys_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "activity_events_type_idx" ON "activity_events" USING btree ("tenant_id","type");--> statement-breakpoint
CREATE INDEX "sandbox_constituents_keys_version_idx" ON "sandbox_constituents" USING btree ("tenant_id","keys_version");--> statement-breakpoint
CREATE INDEX "uploads_formula_idx" ON "uploads" USING btree ("formula_id") WHERE "uploads"."formula_id" is not null;--> statement-breakpoint
CREATE INDEX "activity_events_tenant_at_idx" ON "activity_events" USING btree ("tenant_id","at","id");--> statement-breakpoint
CREATE INDEX "activity_events_formula_at_idx" ON "activity_events" USING btree ("tenant_id","formula_id","at","id");