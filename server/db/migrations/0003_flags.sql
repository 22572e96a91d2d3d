CREATE TABLE "feature_flags" (
	"tenant_id" uuid NOT NULL,
	"namespace_key" text DEFAULT 'default' NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"rollouts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"variants" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"default_variant" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_on" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feature_flags_tenant_id_namespace_key_key_pk" PRIMARY KEY("tenant_id","namespace_key","key"),
	CONSTRAINT "feature_flags_type_check" CHECK ("feature_flags"."type" in ('BOOLEAN_FLAG_TYPE', 'VARIANT_FLAG_TYPE'))
);
--> statement-breakpoint
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feature_flags_tenant_idx" ON "feature_flags" USING btree ("tenant_id");