-- Seed 004: the model each worker's session was started with (chosen by
-- the task's complexity), shown on the worker card and by baton show.
ALTER TABLE workers ADD COLUMN model TEXT NOT NULL DEFAULT '';
