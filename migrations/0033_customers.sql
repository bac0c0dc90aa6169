CREATE INDEX `orders_buyer_email_idx` ON `orders` (`buyer_email`,`purchased_date`);--> statement-breakpoint
CREATE INDEX `identities_role_email_idx` ON `identities` (`role`,`email`);--> statement-breakpoint
CREATE INDEX `carts_owner_idx` ON `carts` (`owner_kind`,`owner_id`,`updated_date`);--> statement-breakpoint
CREATE TABLE `customer_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`body` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `customer_notes_email_idx` ON `customer_notes` (`email`,`created_date`);
