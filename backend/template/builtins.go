package template

// Builtin describes a placeholder that Baton fills in itself, for the
// editor's help and for checks; templates cannot declare variables with
// these names.
type Builtin struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Phases      []Phase `json:"phases"` // the prompts it has a value in
}

// Builtins lists the placeholders Baton fills in itself.
func Builtins() []Builtin {
	main := []Phase{PhaseAnalysis, PhaseTaskPlanning, PhaseReview, PhaseWorkerExecution, PhaseAggregation, PhaseVerification}
	task := []Phase{PhaseWorkerExecution, PhaseReview}
	return []Builtin{
		{VarUserRequest, "The request the user typed for this run.", main},
		{VarCWD, "The project folder the sessions work in.", main},
		{VarTaskID, "The id of the task, such as task_001.", task},
		{VarTaskTitle, "The title of the task.", task},
		{VarTaskDescription, "The instructions of the task.", task},
		{VarTaskScope, "The files and folders of the task, comma-separated.", task},
		{VarTaskJSON, "The whole task as a JSON object (a new_task object in the delegation dialect).", task},
		{VarWorkerOutputs, "Every worker's report, one after the other.", []Phase{PhaseAggregation}},
		{VarCheckResults, "The project's checks as Baton ran them before the workers and after their results came together: command, exit code, duration, verdict and the end of the output. Added at the end of the verification prompt when the prompt does not place it.", []Phase{PhaseVerification}},
		{VarCompletionReport, "The report of the worker whose task is under review.", []Phase{PhaseReview}},
		{VarStartDelimiter, "The start line of an answer block, from prompts.responseFormat.", main},
		{VarEndDelimiter, "The end line of an answer block, from prompts.responseFormat.", main},
		{VarMaxTasks, "config.maxTasks: the most tasks a plan may have.", main},
		{VarMaxWorkers, "config.maxWorkers: the most workers running at once.", main},
	}
}
