CREATE TABLE "data_queue_cards" (
	"tenant_id" uuid NOT NULL,
	"tab_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "data_queue_cards_tab_id_formula_id_pk" PRIMARY KEY("tab_id","formula_id")
);
--> statement-breakpoint
CREATE TABLE "data_queue_tabs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"position" integer NOT NULL,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "data_queue_tabs_id_tenant_key" UNIQUE("id","tenant_id")
);
--> statement-breakpoint
CREATE TABLE "record_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"bucket" text NOT NULL,
	"custom_bucket" text,
	"selection" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text NOT NULL,
	"total" integer,
	"written" integer DEFAULT 0 NOT NULL,
	"file_key" text,
	"file_name" text,
	"error" text,
	"created_on" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_on" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "data_queue_cards" ADD CONSTRAINT "data_queue_cards_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_queue_cards" ADD CONSTRAINT "data_queue_cards_tab_fk" FOREIGN KEY ("tab_id","tenant_id") REFERENCES "public"."data_queue_tabs"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_queue_cards" ADD CONSTRAINT "data_queue_cards_formula_fk" FOREIGN KEY ("formula_id","tenant_id") REFERENCES "public"."formulas"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_queue_tabs" ADD CONSTRAINT "data_queue_tabs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_queue_tabs" ADD CONSTRAINT "data_queue_tabs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_exports" ADD CONSTRAINT "record_exports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_exports" ADD CONSTRAINT "record_exports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_exports" ADD CONSTRAINT "record_exports_formula_fk" FOREIGN KEY ("formula_id","tenant_id") REFERENCES "public"."formulas"("id","tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "data_queue_cards_formula_idx" ON "data_queue_cards" USING btree ("formula_id");--> statement-breakpoint
CREATE INDEX "data_queue_tabs_user_idx" ON "data_queue_tabs" USING btree ("tenant_id","user_id","position");--> statement-breakpoint
CREATE INDEX "record_exports_user_idx" ON "record_exports" USING btree ("tenant_id","user_id","formula_id","created_on");--> statement-breakpoint
CREATE INDEX "record_exports_expiry_idx" ON "record_exports" USING btree ("expires_at") WHERE "record_exports"."file_key" is not null;