CREATE TABLE `cart_line_items` (
	`id` text PRIMARY KEY NOT NULL,
	`cart_id` text NOT NULL,
	`position` integer NOT NULL,
	`item_key` text,
	`app_id` text,
	`catalog_item_id` text,
	`variant_id` text,
	`options` text,
	`quantity` integer NOT NULL,
	`custom` integer DEFAULT false NOT NULL,
	`price` integer NOT NULL,
	`full_price` integer NOT NULL,
	`snapshot` text NOT NULL,
	`added_date` text NOT NULL,
	FOREIGN KEY (`cart_id`) REFERENCES `carts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cart_line_items_key_unique` ON `cart_line_items` (`cart_id`,`item_key`);--> statement-breakpoint
CREATE INDEX `cart_line_items_cart_idx` ON `cart_line_items` (`cart_id`,`position`);--> statement-breakpoint
CREATE INDEX `cart_line_items_catalog_idx` ON `cart_line_items` (`catalog_item_id`);--> statement-breakpoint
CREATE TABLE `carts` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`currency` text NOT NULL,
	`weight_unit` text DEFAULT 'KG' NOT NULL,
	`buyer_info` text DEFAULT '{}' NOT NULL,
	`contact_info` text,
	`buyer_note` text,
	`selected_shipping_option` text,
	`business_location_id` text,
	`override_checkout_url` text,
	`coupon_code` text,
	`merchant_discounts` text DEFAULT '[]' NOT NULL,
	`checkout_id` text,
	`purchase_flow_id` text NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	`last_activity` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `carts_active_owner_unique` ON `carts` (`owner_kind`,`owner_id`) WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX `carts_status_activity_idx` ON `carts` (`status`,`last_activity`);--> statement-breakpoint
CREATE TABLE `checkouts` (
	`id` text PRIMARY KEY NOT NULL,
	`cart_id` text NOT NULL,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`status` text DEFAULT 'OPEN' NOT NULL,
	`channel_type` text DEFAULT 'WEB' NOT NULL,
	`currency` text NOT NULL,
	`weight_unit` text DEFAULT 'KG' NOT NULL,
	`line_items` text NOT NULL,
	`buyer_info` text NOT NULL,
	`shipping_address` text,
	`billing_address` text,
	`contact_details` text,
	`selected_shipping_option` text,
	`coupon_code` text,
	`merchant_discounts` text DEFAULT '[]' NOT NULL,
	`totals` text NOT NULL,
	`subtotal` integer NOT NULL,
	`total` integer NOT NULL,
	`purchase_flow_id` text NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `checkouts_cart_idx` ON `checkouts` (`cart_id`);--> statement-breakpoint
CREATE INDEX `checkouts_owner_idx` ON `checkouts` (`owner_kind`,`owner_id`);