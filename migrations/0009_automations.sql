CREATE TABLE `abandoned_checkout_activities` (
	`id` text PRIMARY KEY NOT NULL,
	`abandoned_checkout_id` text NOT NULL,
	`type` text NOT NULL,
	`reason` text,
	`actor_type` text,
	`actor_id` text,
	`details` text NOT NULL,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `abandoned_checkout_activities_idx` ON `abandoned_checkout_activities` (`abandoned_checkout_id`,`created_date`);--> statement-breakpoint
CREATE TABLE `abandoned_checkouts` (
	`id` text PRIMARY KEY NOT NULL,
	`cart_id` text NOT NULL,
	`checkout_id` text,
	`owner_kind` text NOT NULL,
	`owner_id` text NOT NULL,
	`status` text NOT NULL,
	`buyer_info` text NOT NULL,
	`currency` text NOT NULL,
	`subtotal` integer NOT NULL,
	`total` integer NOT NULL,
	`line_items` text NOT NULL,
	`cart_created_date` text NOT NULL,
	`abandon_time` text NOT NULL,
	`recovery_token` text NOT NULL,
	`restored_cart_id` text,
	`recovered_date` text,
	`recovered_order_id` text,
	`recovered_total` integer,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `abandoned_checkouts_open_cart_idx` ON `abandoned_checkouts` (`cart_id`) WHERE status = 'ABANDONED';--> statement-breakpoint
CREATE UNIQUE INDEX `abandoned_checkouts_token_idx` ON `abandoned_checkouts` (`recovery_token`);--> statement-breakpoint
CREATE INDEX `abandoned_checkouts_restored_idx` ON `abandoned_checkouts` (`restored_cart_id`);--> statement-breakpoint
CREATE INDEX `abandoned_checkouts_status_idx` ON `abandoned_checkouts` (`status`,`created_date`);--> statement-breakpoint
CREATE TABLE `back_in_stock_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`app_id` text NOT NULL,
	`catalog_item_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`options` text,
	`item_url` text,
	`item_details` text,
	`status` text NOT NULL,
	`auto_notified` integer,
	`reason` text,
	`processing_key` text,
	`email_id` text,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `back_in_stock_unique_idx` ON `back_in_stock_requests` (`email_key`,`catalog_item_id`,`variant_id`);--> statement-breakpoint
CREATE INDEX `back_in_stock_item_idx` ON `back_in_stock_requests` (`catalog_item_id`,`status`);--> statement-breakpoint
CREATE INDEX `back_in_stock_processing_idx` ON `back_in_stock_requests` (`processing_key`);--> statement-breakpoint
CREATE TABLE `cart_abandonment_marks` (
	`cart_id` text PRIMARY KEY NOT NULL,
	`idle_since` text NOT NULL,
	`event_id` text NOT NULL,
	`marked_date` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `recovery_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`abandoned_checkout_id` text NOT NULL,
	`step` integer NOT NULL,
	`delay_minutes` integer NOT NULL,
	`due_date` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`email_id` text,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recovery_emails_step_idx` ON `recovery_emails` (`abandoned_checkout_id`,`step`);--> statement-breakpoint
CREATE INDEX `recovery_emails_due_idx` ON `recovery_emails` (`status`,`due_date`);--> statement-breakpoint
CREATE TABLE `email_subscriptions` (
	`email` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL,
	`unsubscribed_date` text,
	`created_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_subscriptions_token_idx` ON `email_subscriptions` (`token`);--> statement-breakpoint
ALTER TABLE `emails` ADD `idempotency_key` text;--> statement-breakpoint
ALTER TABLE `emails` ADD `headers` text;--> statement-breakpoint
CREATE UNIQUE INDEX `emails_idempotency_idx` ON `emails` (`idempotency_key`);