ALTER TABLE `orders` ADD `checkout_session_id` text;--> statement-breakpoint
ALTER TABLE `inventory_changes` ADD `change_key` text;--> statement-breakpoint
CREATE INDEX `order_refunds_started_idx` ON `order_refunds` (`updated_date`) WHERE status = 'STARTED';--> statement-breakpoint
CREATE INDEX `order_refunds_pending_idx` ON `order_refunds` (`updated_date`) WHERE status = 'PENDING';
