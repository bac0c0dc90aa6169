CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`entity_id` text,
	`dedupe_key` text NOT NULL,
	`status` text NOT NULL,
	`created_date` text NOT NULL,
	`completed_date` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_open_dedupe_idx` ON `tasks` (`dedupe_key`) WHERE status = 'OPEN';--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`,`created_date`);--> statement-breakpoint
CREATE TABLE `event_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`state` text NOT NULL,
	`processor` text,
	`error` text NOT NULL,
	`attempts` integer NOT NULL,
	`first_failed_at` text NOT NULL,
	`last_failed_at` text NOT NULL,
	`dead_at` text,
	`replayed_at` text
);
--> statement-breakpoint
CREATE INDEX `event_failures_state_idx` ON `event_failures` (`state`,`last_failed_at`);--> statement-breakpoint
CREATE TABLE `processed_events` (
	`event_id` text NOT NULL,
	`processor` text NOT NULL,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`event_id`, `processor`)
);
--> statement-breakpoint
CREATE INDEX `processed_events_time_idx` ON `processed_events` (`processed_at`);