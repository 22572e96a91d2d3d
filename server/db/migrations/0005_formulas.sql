CREATE TABLE "activity_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_user_id" uuid,
	"actor_name" text NOT NULL,
	"type" text NOT NULL,
	"description" text NOT NULL,
	"details" jsonb NOT NULL,
	"correlation_id" text NOT NULL,
	"formula_id" uuid,
	"record_id" uuid
);
--> statement-breakpoint
CREATE TABLE "formula_parts" (
	"tenant_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"part" text NOT NULL,
	"body" jsonb NOT NULL,
	"modified_by" uuid,
	"modified_on" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "formula_parts_formula_id_part_pk" PRIMARY KEY("formula_id","part")
);
--> statement-breakpoint
CREATE TABLE "formula_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"next_retry_at" timestamp with time zone,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"correlation_id" text NOT NULL,
	"started_by" uuid,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_on" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "records" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"run_id" uuid,
	"source_key" text NOT NULL,
	"bucket" text NOT NULL,
	"custom_bucket" text,
	"state" text NOT NULL,
	"raw" jsonb NOT NULL,
	"transformed" jsonb,
	"matching" jsonb,
	"candidates" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"destination_record_id" text,
	"idempotency_key" text NOT NULL,
	"error_reason" text,
	"error_date" timestamp with time zone,
	"date_added" timestamp with time zone DEFAULT now() NOT NULL,
	"date_processed" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "formulas" DROP CONSTRAINT "formulas_source_data_source_id_data_sources_id_fk";
--> statement-breakpoint
ALTER TABLE "formulas" DROP CONSTRAINT "formulas_destination_data_source_id_data_sources_id_fk";
--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "uses_file_upload" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "source_object" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "source_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "destination_object" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "destination_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "sample_upload_id" uuid;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "status" text DEFAULT 'inactive' NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "job_status" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "needs_reprocess" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "watermark" text;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "created_by" uuid;--> statement-breakpoint
ALTER TABLE "formulas" ADD COLUMN "modified_by" uuid;--> statement-breakpoint
ALTER TABLE "data_sources" ADD CONSTRAINT "data_sources_id_tenant_key" UNIQUE("id","tenant_id");--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_id_tenant_key" UNIQUE("id","tenant_id");--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_id_tenant_key" UNIQUE("id","tenant_id");--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_actor_user_id_users_id_fk" FOREIGN KEY ("actor_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_parts" ADD CONSTRAINT "formula_parts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_parts" ADD CONSTRAINT "formula_parts_modified_by_users_id_fk" FOREIGN KEY ("modified_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_parts" ADD CONSTRAINT "formula_parts_formula_fk" FOREIGN KEY ("formula_id","tenant_id") REFERENCES "public"."formulas"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_runs" ADD CONSTRAINT "formula_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_runs" ADD CONSTRAINT "formula_runs_started_by_users_id_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formula_runs" ADD CONSTRAINT "formula_runs_formula_fk" FOREIGN KEY ("formula_id","tenant_id") REFERENCES "public"."formulas"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_run_id_formula_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."formula_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "records" ADD CONSTRAINT "records_formula_fk" FOREIGN KEY ("formula_id","tenant_id") REFERENCES "public"."formulas"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_events_tenant_at_idx" ON "activity_events" USING btree ("tenant_id","at");--> statement-breakpoint
CREATE INDEX "activity_events_formula_at_idx" ON "activity_events" USING btree ("tenant_id","formula_id","at");--> statement-breakpoint
CREATE INDEX "formula_parts_tenant_idx" ON "formula_parts" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "formula_runs_formula_idx" ON "formula_runs" USING btree ("formula_id","created_on");--> statement-breakpoint
CREATE UNIQUE INDEX "records_formula_source_key_idx" ON "records" USING btree ("formula_id","source_key");--> statement-breakpoint
CREATE INDEX "records_bucket_idx" ON "records" USING btree ("formula_id","bucket","date_added","id");--> statement-breakpoint
CREATE INDEX "records_tenant_idx" ON "records" USING btree ("tenant_id");--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_modified_by_users_id_fk" FOREIGN KEY ("modified_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_source_fk" FOREIGN KEY ("source_data_source_id","tenant_id") REFERENCES "public"."data_sources"("id","tenant_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_destination_fk" FOREIGN KEY ("destination_data_source_id","tenant_id") REFERENCES "public"."data_sources"("id","tenant_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "formulas" ADD CONSTRAINT "formulas_sample_upload_fk" FOREIGN KEY ("sample_upload_id","tenant_id") REFERENCES "public"."uploads"("id","tenant_id") ON DELETE no action ON UPDATE no action;
