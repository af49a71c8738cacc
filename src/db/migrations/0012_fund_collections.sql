CREATE TABLE "fund_collections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"application_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"cover_image_url" text,
	"currency" text NOT NULL,
	"environment" text NOT NULL,
	"is_amount_fixed" boolean NOT NULL,
	"amount" bigint,
	"collect_customer_info" boolean DEFAULT false NOT NULL,
	"thank_you_message" text,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fund_collections" ADD CONSTRAINT "fund_collections_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fund_collections_slug_key" ON "fund_collections" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "fund_collections_app_created_idx" ON "fund_collections" USING btree ("application_id","created_at");