CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`started_date` text NOT NULL,
	`response_status` integer,
	`latency_ms` integer NOT NULL,
	`response_excerpt` text,
	`error` text,
	`succeeded` integer NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`event` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`schedule_attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`last_error` text,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_subscription_event_idx` ON `webhook_deliveries` (`subscription_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_idx` ON `webhook_deliveries` (`subscription_id`,`created_date`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`data` text NOT NULL,
	`received_date` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `webhook_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_source_webhook_idx` ON `webhook_events` (`source_id`,`webhook_id`);--> statement-breakpoint
CREATE INDEX `webhook_events_received_idx` ON `webhook_events` (`source_id`,`received_date`);--> statement-breakpoint
CREATE TABLE `webhook_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`format` text NOT NULL,
	`keys` text NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_sources_name_unique` ON `webhook_sources` (`name`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`event_types` text NOT NULL,
	`format` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` text,
	`enabled` integer NOT NULL,
	`disabled_reason` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL
);
