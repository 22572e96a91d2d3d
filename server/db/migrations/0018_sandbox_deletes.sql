CREATE TABLE "sandbox_deletes" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"deletes" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE FUNCTION "sandbox_constituents_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "sandbox_deletes" ("tenant_id", "deletes")
	SELECT DISTINCT "tenant_id", 1 FROM gone
	ON CONFLICT ("tenant_id") DO UPDATE SET "deletes" = "sandbox_deletes"."deletes" + 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "sandbox_constituents_deleted" AFTER DELETE ON "sandbox_constituents"
	REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "sandbox_constituents_deleted"();
