CREATE SEQUENCE "public"."sandbox_lookup_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 100000 CACHE 1;--> statement-breakpoint
CREATE TABLE "data_sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"system" text NOT NULL,
	"display_name" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secret_ciphertext" "bytea",
	"secret_iv" "bytea",
	"secret_tag" "bytea",
	"secret_key_version" text,
	"objects" jsonb,
	"objects_refreshed_on" timestamp with time zone,
	"created_by" uuid,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_by" uuid,
	"modified_on" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "formulas" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text,
	"is_draft" boolean DEFAULT true NOT NULL,
	"source_data_source_id" uuid,
	"destination_data_source_id" uuid,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_on" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_addresses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"constituent_id" uuid NOT NULL,
	"type" text DEFAULT 'Home' NOT NULL,
	"line1" text,
	"line2" text,
	"city" text,
	"state" text,
	"postal_code" text,
	"country" text,
	"is_primary" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_constituents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"lookup_id" text NOT NULL,
	"title" text,
	"first_name" text,
	"last_name" text NOT NULL,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_on" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_emails" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"constituent_id" uuid NOT NULL,
	"type" text DEFAULT 'Personal' NOT NULL,
	"address" text NOT NULL,
	"is_primary" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_gifts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"constituent_id" uuid NOT NULL,
	"lookup_id" text NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"gift_date" date NOT NULL,
	"type" text DEFAULT 'Donation' NOT NULL,
	"fund" text,
	"campaign" text,
	"appeal" text,
	"payment_method" text,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"modified_on" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_phones" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"constituent_id" uuid NOT NULL,
	"type" text DEFAULT 'Mobile' NOT NULL,
	"number" text NOT NULL,
	"is_primary" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_writes" (
	"tenant_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"object" text NOT NULL,
	"record_id" uuid NOT NULL,
	"outcome" text NOT NULL,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sandbox_writes_tenant_id_idempotency_key_pk" PRIMARY KEY("tenant_id","idempotency_key")
);
--> statement-breakpoint
ALTER TABLE "data_sources" ADD CONSTRAINT "data_sources_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_sources" ADD CONSTRAINT "data_sources_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_sources" ADD CONSTRAINT "data_sources_modified_by_users_id_fk" FOREIGN KEY ("modified_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_source_data_source_id_data_sources_id_fk" FOREIGN KEY ("source_data_source_id") REFERENCES "public"."data_sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_destination_data_source_id_data_sources_id_fk" FOREIGN KEY ("destination_data_source_id") REFERENCES "public"."data_sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_addresses" ADD CONSTRAINT "sandbox_addresses_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_addresses" ADD CONSTRAINT "sandbox_addresses_constituent_id_sandbox_constituents_id_fk" FOREIGN KEY ("constituent_id") REFERENCES "public"."sandbox_constituents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD CONSTRAINT "sandbox_constituents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_emails" ADD CONSTRAINT "sandbox_emails_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_emails" ADD CONSTRAINT "sandbox_emails_constituent_id_sandbox_constituents_id_fk" FOREIGN KEY ("constituent_id") REFERENCES "public"."sandbox_constituents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_gifts" ADD CONSTRAINT "sandbox_gifts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_gifts" ADD CONSTRAINT "sandbox_gifts_constituent_id_sandbox_constituents_id_fk" FOREIGN KEY ("constituent_id") REFERENCES "public"."sandbox_constituents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_phones" ADD CONSTRAINT "sandbox_phones_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_phones" ADD CONSTRAINT "sandbox_phones_constituent_id_sandbox_constituents_id_fk" FOREIGN KEY ("constituent_id") REFERENCES "public"."sandbox_constituents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sandbox_writes" ADD CONSTRAINT "sandbox_writes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_sources_tenant_idx" ON "data_sources" USING btree ("tenant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "data_sources_tenant_name_idx" ON "data_sources" USING btree ("tenant_id",lower("display_name"));--> statement-breakpoint
CREATE INDEX "formulas_tenant_idx" ON "formulas" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "formulas_source_idx" ON "formulas" USING btree ("source_data_source_id") WHERE "formulas"."source_data_source_id" is not null;--> statement-breakpoint
CREATE INDEX "formulas_destination_idx" ON "formulas" USING btree ("destination_data_source_id") WHERE "formulas"."destination_data_source_id" is not null;--> statement-breakpoint
CREATE INDEX "sandbox_addresses_owner_idx" ON "sandbox_addresses" USING btree ("constituent_id");--> statement-breakpoint
CREATE INDEX "sandbox_addresses_postcode_idx" ON "sandbox_addresses" USING btree ("tenant_id",lower("postal_code"));--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_constituents_lookup_idx" ON "sandbox_constituents" USING btree ("tenant_id","lookup_id");--> statement-breakpoint
CREATE INDEX "sandbox_constituents_name_idx" ON "sandbox_constituents" USING btree ("tenant_id",lower("last_name"),lower("first_name"));--> statement-breakpoint
CREATE INDEX "sandbox_constituents_modified_idx" ON "sandbox_constituents" USING btree ("tenant_id","modified_on","id");--> statement-breakpoint
CREATE INDEX "sandbox_emails_owner_idx" ON "sandbox_emails" USING btree ("constituent_id");--> statement-breakpoint
CREATE INDEX "sandbox_emails_address_idx" ON "sandbox_emails" USING btree ("tenant_id",lower("address"));--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_gifts_lookup_idx" ON "sandbox_gifts" USING btree ("tenant_id","lookup_id");--> statement-breakpoint
CREATE INDEX "sandbox_gifts_owner_idx" ON "sandbox_gifts" USING btree ("constituent_id");--> statement-breakpoint
CREATE INDEX "sandbox_gifts_modified_idx" ON "sandbox_gifts" USING btree ("tenant_id","modified_on","id");--> statement-breakpoint
CREATE INDEX "sandbox_phones_owner_idx" ON "sandbox_phones" USING btree ("constituent_id");--> statement-breakpoint
CREATE INDEX "sandbox_phones_number_idx" ON "sandbox_phones" USING btree ("tenant_id","number");