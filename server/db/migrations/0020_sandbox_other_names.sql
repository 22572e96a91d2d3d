ALTER TABLE "sandbox_constituents" ADD COLUMN "middle_name" text;--> statement-breakpoint
ALTER TABLE "sandbox_constituents" ADD COLUMN "preferred_name" text;