CREATE INDEX `import_jobs_applying_idx` ON `import_jobs` (`updated_date`) WHERE status = 'APPLYING';
