CREATE TABLE `digital_files` (
	`id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`variant_id` text DEFAULT '' NOT NULL,
	`object_key` text NOT NULL,
	`file_name` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `digital_files_product_variant_unique` ON `digital_files` (`product_id`,`variant_id`);--> statement-breakpoint
CREATE TABLE `line_downloads` (
	`order_id` text NOT NULL,
	`line_id` text NOT NULL,
	`count` integer NOT NULL,
	`last_date` text NOT NULL,
	PRIMARY KEY(`order_id`, `line_id`)
);
