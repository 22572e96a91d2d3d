CREATE TABLE "record_tallies" (
	"tenant_id" uuid NOT NULL,
	"formula_id" uuid NOT NULL,
	"bucket" text NOT NULL,
	"custom_bucket" text,
	"state" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "record_tallies_formula_idx" ON "record_tallies" USING btree ("formula_id");--> statement-breakpoint
CREATE INDEX "record_tallies_tenant_idx" ON "record_tallies" USING btree ("tenant_id");--> statement-breakpoint
-- The tallies follow every change of `records`: one row per group (tenant, formula, bucket, custom
-- bucket, state) a statement changed, with its net count, read from the statement's transition
-- tables, so a batch of a thousand records costs one small insert. Where counts changed, the
-- formula's status is announced on the channel the status stream listens to (pg_notify sends one
-- notification per payload per transaction), which is what keeps the Data Queue's counts live.
CREATE FUNCTION "record_tallies_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE announced bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH added AS (
      INSERT INTO record_tallies (tenant_id, formula_id, bucket, custom_bucket, state, n)
      SELECT tenant_id, formula_id, bucket, custom_bucket, state, count(*) FROM new_records GROUP BY 1, 2, 3, 4, 5
      RETURNING tenant_id, formula_id)
    SELECT count(pg_notify('formula_status', tenant_id || ':' || formula_id)) INTO announced FROM (SELECT DISTINCT tenant_id, formula_id FROM added) f;
  ELSIF TG_OP = 'DELETE' THEN
    WITH removed AS (
      INSERT INTO record_tallies (tenant_id, formula_id, bucket, custom_bucket, state, n)
      SELECT tenant_id, formula_id, bucket, custom_bucket, state, -count(*) FROM old_records GROUP BY 1, 2, 3, 4, 5
      RETURNING tenant_id, formula_id)
    SELECT count(pg_notify('formula_status', tenant_id || ':' || formula_id)) INTO announced FROM (SELECT DISTINCT tenant_id, formula_id FROM removed) f;
  ELSE
    WITH moved AS (
      INSERT INTO record_tallies (tenant_id, formula_id, bucket, custom_bucket, state, n)
      SELECT tenant_id, formula_id, bucket, custom_bucket, state, sum(n) FROM (
        SELECT tenant_id, formula_id, bucket, custom_bucket, state, 1 AS n FROM new_records
        UNION ALL
        SELECT tenant_id, formula_id, bucket, custom_bucket, state, -1 AS n FROM old_records
      ) d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0
      RETURNING tenant_id, formula_id)
    SELECT count(pg_notify('formula_status', tenant_id || ':' || formula_id)) INTO announced FROM (SELECT DISTINCT tenant_id, formula_id FROM moved) f;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
LOCK TABLE "records" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
CREATE TRIGGER "records_tally_insert" AFTER INSERT ON "records" REFERENCING NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "record_tallies_follow"();--> statement-breakpoint
CREATE TRIGGER "records_tally_update" AFTER UPDATE ON "records" REFERENCING OLD TABLE AS old_records NEW TABLE AS new_records
  FOR EACH STATEMENT EXECUTE FUNCTION "record_tallies_follow"();--> statement-breakpoint
CREATE TRIGGER "records_tally_delete" AFTER DELETE ON "records" REFERENCING OLD TABLE AS old_records
  FOR EACH STATEMENT EXECUTE FUNCTION "record_tallies_follow"();--> statement-breakpoint
INSERT INTO "record_tallies" ("tenant_id", "formula_id", "bucket", "custom_bucket", "state", "n")
  SELECT "tenant_id", "formula_id", "bucket", "custom_bucket", "state", count(*) FROM "records" GROUP BY 1, 2, 3, 4, 5;
