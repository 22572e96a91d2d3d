ALTER TABLE "sandbox_constituents" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "address_line1" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "address_line2" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "city" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "state" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "postal_code" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "country" text;--> statement-breakpoint
-- each constituent's primary e-mail, phone and address move onto its row (any one where several are primary);
-- its keys were computed from these same values, so they stay
UPDATE "sandbox_constituents" c
SET "email" = x.email, "phone" = x.phone, "address_line1" = x.line1, "address_line2" = x.line2,
  "city" = x.city, "state" = x.state, "postal_code" = x.postal_code, "country" = x.country
FROM (
  SELECT o.id, e.address AS email, p.number AS phone, a.line1, a.line2, a.city, a.state, a.postal_code, a.country
  FROM "sandbox_constituents" o
  LEFT JOIN (SELECT DISTINCT ON (constituent_id) constituent_id, address FROM "sandbox_emails" WHERE is_primary ORDER BY constituent_id) e
    ON e.constituent_id = o.id
  LEFT JOIN (SELECT DISTINCT ON (constituent_id) constituent_id, number FROM "sandbox_phones" WHERE is_primary ORDER BY constituent_id) p
    ON p.constituent_id = o.id
  LEFT JOIN (SELECT DISTINCT ON (constituent_id) constituent_id, line1, line2, city, state, postal_code, country
    FROM "sandbox_addresses" WHERE is_primary ORDER BY constituent_id) a
    ON a.constituent_id = o.id
  WHERE coalesce(e.address, p.number, a.line1, a.line2, a.city, a.state, a.postal_code, a.country) IS NOT NULL
) x
WHERE c.id = x.id;--> statement-breakpoint
DROP TABLE "sandbox_addresses" CASCADE;--> statement-breakpoint
DROP TABLE "sandbox_emails" CASCADE;--> statement-breakpoint
DROP TABLE "sandbox_phones" CASCADE;
