ALTER TABLE "data_sources" ADD COLUMN "built_in" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "data_sources_tenant_built_in_idx" ON "data_sources" USING btree ("tenant_id") WHERE "data_sources"."built_in";--> statement-breakpoint
-- every tenant has its 'File upload' data source: an existing one of that name is adopted, otherwise one is made
UPDATE "data_sources" SET "built_in" = true WHERE "system" = 'file-upload' AND lower("display_name") = 'file upload';--> statement-breakpoint
INSERT INTO "data_sources" ("tenant_id", "system", "display_name", "built_in")
SELECT t."id", 'file-upload',
  CASE WHEN EXISTS (SELECT 1 FROM "data_sources" d WHERE d."tenant_id" = t."id" AND lower(d."display_name") = 'file upload')
    THEN 'File upload (built in)' ELSE 'File upload' END,
  true
FROM "tenants" t
WHERE NOT EXISTS (SELECT 1 FROM "data_sources" d WHERE d."tenant_id" = t."id" AND d."built_in");--> statement-breakpoint
-- and a tenant made later gets its own as it is made, whichever code makes it
CREATE FUNCTION "tenant_built_in_data_sources"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "data_sources" ("tenant_id", "system", "display_name", "built_in") VALUES (NEW."id", 'file-upload', 'File upload', true);
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "tenants_built_in_data_sources" AFTER INSERT ON "tenants" FOR EACH ROW EXECUTE FUNCTION "tenant_built_in_data_sources"();
