-- Seed 003 and 004: the skills matched to each task, and a worker's open
-- questions (clarification_needed) and reported conflicts (conflict_detected).
ALTER TABLE tasks ADD COLUMN skills TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workers ADD COLUMN questions TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workers ADD COLUMN conflicts TEXT NOT NULL DEFAULT '[]';
