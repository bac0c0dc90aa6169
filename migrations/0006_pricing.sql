CREATE TABLE `additional_fees` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`amount` integer,
	`percentage` real,
	`minimum_subtotal` integer,
	`active` integer DEFAULT true NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `additional_fees_code_unique` ON `additional_fees` (`code`);--> statement-breakpoint
CREATE TABLE `coupons` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`code_key` text NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`start_time` text,
	`expiration_time` text,
	`usage_limit` integer,
	`times_used` integer DEFAULT 0 NOT NULL,
	`minimum_subtotal` integer,
	`discount` text NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_code_key_unique` ON `coupons` (`code_key`);--> statement-breakpoint
CREATE TABLE `discount_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`start_date` text,
	`end_date` text,
	`trigger` text,
	`discount` text NOT NULL,
	`usage_count` integer DEFAULT 0 NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `discount_rules_active_idx` ON `discount_rules` (`active`,`created_date`);--> statement-breakpoint
CREATE TABLE `shipping_regions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`countries` text NOT NULL,
	`subdivisions` text NOT NULL,
	`rest_of_world` integer DEFAULT false NOT NULL,
	`options` text NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tax_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`catalog_item_ids` text NOT NULL,
	`collection_ids` text NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tax_regions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`country` text NOT NULL,
	`subdivision` text DEFAULT '' NOT NULL,
	`default_rate` real NOT NULL,
	`group_rates` text NOT NULL,
	`tax_shipping` integer DEFAULT false NOT NULL,
	`calculation` text DEFAULT 'DEFAULT' NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tax_regions_place_unique` ON `tax_regions` (`country`,`subdivision`);