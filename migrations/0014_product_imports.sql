CREATE TABLE `import_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`file_name` text NOT NULL,
	`auth` text NOT NULL,
	`created_by` text NOT NULL,
	`columns` text NOT NULL,
	`summary` text NOT NULL,
	`total_rows` integer NOT NULL,
	`chunks` integer NOT NULL,
	`created_date` text NOT NULL,
	`updated_date` text NOT NULL,
	`applied_date` text,
	`finished_date` text
);
--> statement-breakpoint
CREATE TABLE `import_rows` (
	`job_id` text NOT NULL,
	`row` integer NOT NULL,
	`chunk` integer NOT NULL,
	`slug` text NOT NULL,
	`cells` text NOT NULL,
	`action` text NOT NULL,
	`errors` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	PRIMARY KEY(`job_id`, `row`),
	FOREIGN KEY (`job_id`) REFERENCES `import_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `import_rows_chunk_idx` ON `import_rows` (`job_id`,`chunk`);--> statement-breakpoint
CREATE INDEX `import_rows_status_idx` ON `import_rows` (`job_id`,`status`);