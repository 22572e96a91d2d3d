CREATE TABLE "vendor_tokens" (
	"data_source_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"grant" text NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"iv" "bytea" NOT NULL,
	"tag" "bytea" NOT NULL,
	"key_version" text NOT NULL,
	"expires_on" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vendor_writes" (
	"tenant_id" uuid NOT NULL,
	"data_source_id" uuid NOT NULL,
	"object" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"vendor_id" text,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vendor_writes_data_source_id_object_idempotency_key_pk" PRIMARY KEY("data_source_id","object","idempotency_key")
);
--> statement-breakpoint
ALTER TABLE "data_sources" ADD COLUMN "needs_reconnecting" text;--> statement-breakpoint
ALTER TABLE "data_sources" ADD COLUMN "needs_reconnecting_on" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vendor_tokens" ADD CONSTRAINT "vendor_tokens_data_source_id_data_sources_id_fk" FOREIGN KEY ("data_source_id") REFERENCES "public"."data_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_tokens" ADD CONSTRAINT "vendor_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_writes" ADD CONSTRAINT "vendor_writes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vendor_writes" ADD CONSTRAINT "vendor_writes_data_source_id_data_sources_id_fk" FOREIGN KEY ("data_source_id") REFERENCES "public"."data_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vendor_writes_tenant_idx" ON "vendor_writes" USING btree ("tenant_id");