// The one door from the frontend to Go. Wails v2 rejects a failed binding
// call with a plain string; every binding is wrapped here once so callers
// always receive an Error (an ApiError naming the binding).
import * as App from '../../wailsjs/go/main/App';
import type {
  AppInfo,
  Applied,
  CreateRunRequest,
  DoctorReport,
  FileDiff,
  FinalReport,
  HistoryPage,
  HistoryQuery,
  HostKind,
  HostStatus,
  InboxItem,
  Machine,
  MachinesView,
  Modifications,
  PermissionDecision,
  PermissionPrompt,
  PullRequestResult,
  Pushed,
  RemoteLink,
  Remotes,
  RemoteStatus,
  ReportExport,
  ResolvedTemplate,
  Run,
  RunSnapshot,
  SessionInfo,
  SessionTranscript,
  Settings,
  SettingsView,
  Template,
  TemplateExport,
  TemplateImport,
  TemplateInfo,
  TemplateProblem,
  WorkerAction,
} from './types';

// The shared types travel with the API, so a caller imports both from here.
export type * from './types';

/** A binding call that failed; message is the sentence Go wrote for the user. */
export class ApiError extends Error {
  readonly binding: string;

  constructor(binding: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiError';
    this.binding = binding;
  }
}

/** Turns whatever a rejected binding call gave into an Error. */
export function toError(binding: string, reason: unknown): Error {
  if (reason instanceof Error) {
    return reason;
  }
  if (typeof reason === 'string' && reason.trim() !== '') {
    return new ApiError(binding, reason.trim());
  }
  if (reason && typeof reason === 'object' && 'message' in reason && typeof reason.message === 'string') {
    return new ApiError(binding, reason.message, { cause: reason });
  }
  return new ApiError(binding, `Baton could not complete "${binding}" and gave no reason.`, { cause: reason });
}

/** Runs one binding call and rejects with an Error when it fails. */
export async function call<T>(binding: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (reason) {
    throw toError(binding, reason);
  }
}

export const api = {
  /** Tells Go the page is up; returns what the window shows about this build. */
  ready: (): Promise<AppInfo> => call('Ready', () => App.Ready()),

  templates: {
    list: (): Promise<TemplateInfo[]> => call('ListTemplates', () => App.ListTemplates()),
    /** The document as stored, before inheritance: what the editor edits. */
    source: (id: string): Promise<string> => call('TemplateSource', () => App.TemplateSource(id)),
    resolve: (id: string): Promise<ResolvedTemplate> => call('ResolveTemplate', () => App.ResolveTemplate(id)),
    resolveDraft: (doc: string): Promise<ResolvedTemplate> => call('ResolveTemplateDraft', () => App.ResolveTemplateDraft(doc)),
    /** The same validator saving uses; an empty list means valid. */
    validate: (doc: string): Promise<TemplateProblem[]> => call('ValidateTemplate', () => App.ValidateTemplate(doc)),
    create: (doc: string): Promise<Template> => call('CreateTemplate', () => App.CreateTemplate(doc)),
    update: (id: string, doc: string): Promise<Template> => call('UpdateTemplate', () => App.UpdateTemplate(id, doc)),
    remove: (id: string): Promise<void> => call('DeleteTemplate', () => App.DeleteTemplate(id)),
    duplicate: (id: string, name = ''): Promise<Template> => call('DuplicateTemplate', () => App.DuplicateTemplate(id, name)),
    generateId: (name: string): Promise<string> => call('GenerateTemplateID', () => App.GenerateTemplateID(name)),
    /** Opens a file picker; cancelled when the user closed it. */
    import: (): Promise<TemplateImport> => call('ImportTemplate', () => App.ImportTemplate()),
    export: (id: string, resolved: boolean): Promise<TemplateExport> => call('ExportTemplate', () => App.ExportTemplate(id, resolved)),
  },

  settings: {
    get: (): Promise<SettingsView> => call('GetSettings', () => App.GetSettings()),
    save: (s: Settings): Promise<SettingsView> => call('SaveSettings', () => App.SaveSettings(s)),
    /** Keeps a broken settings.json as settings.json.broken and restores the defaults. */
    reset: (): Promise<SettingsView> => call('ResetSettings', () => App.ResetSettings()),
    /** Runs the doctor's checks for the settings as the form holds them. */
    test: (s: Settings): Promise<DoctorReport> => call('TestConnection', () => App.TestConnection(s)),
  },

  host: {
    status: (): Promise<HostStatus> => call('HostStatus', () => App.HostStatus()),
    /** The kinds of session host Settings offers, with the settings each one reads. */
    kinds: (): Promise<HostKind[]> => call('HostKinds', () => App.HostKinds()),
  },

  /** Settings → Remote access: Baton's window in a browser, behind an access link. */
  remote: {
    status: (): Promise<RemoteStatus> => call('RemoteAccessStatus', () => App.RemoteAccessStatus()),
    /** Serves on listen (host:port); the first time it resolves with the access link, shown only then. */
    start: (listen: string, behindProxy: boolean): Promise<RemoteLink> =>
      call('StartRemoteAccess', () => App.StartRemoteAccess(listen, behindProxy)),
    stop: (): Promise<void> => call('StopRemoteAccess', () => App.StopRemoteAccess()),
    /** Replaces the access link, signing every browser out; resolves with the new link. */
    newLink: (): Promise<RemoteLink> => call('NewRemoteLink', () => App.NewRemoteLink()),
  },

  /** Settings → Machines: other machines that worktree runs place workers on over SSH. */
  machines: {
    list: (): Promise<MachinesView> => call('GetMachines', () => App.GetMachines()),
    /** Adds the machine, or replaces the one of its name when replace is set; resolves with the list. */
    save: (m: Machine, replace: boolean): Promise<MachinesView> => call('SaveMachine', () => App.SaveMachine(m, replace)),
    remove: (name: string): Promise<MachinesView> => call('RemoveMachine', () => App.RemoveMachine(name)),
    /** The machine's doctor: SSH, git, its workspace, the CLI there and one tiny request. */
    test: (name: string): Promise<DoctorReport> => call('TestMachine', () => App.TestMachine(name)),
  },

  /** The native folder dialog; resolves to '' when the user cancelled. */
  chooseFolder: (title = ''): Promise<string> => call('ChooseFolder', () => App.ChooseFolder(title)),

  sessions: {
    /** Starts a session in folder cwd; resolves to its id. */
    start: (cwd: string, message: string): Promise<string> => call('StartSession', () => App.StartSession(cwd, message)),
    list: (includeHidden: boolean): Promise<SessionInfo[]> => call('ListSessions', () => App.ListSessions(includeHidden)),
    transcript: (id: string): Promise<SessionTranscript> => call('ReadSessionTranscript', () => App.ReadSessionTranscript(id)),
    send: (id: string, text: string): Promise<void> => call('SendToSession', () => App.SendToSession(id, text)),
    permissions: (): Promise<PermissionPrompt[]> => call('PendingPermissions', () => App.PendingPermissions()),
    respond: (requestId: string, decision: PermissionDecision): Promise<void> =>
      call('RespondPermission', () => App.RespondPermission(requestId, decision)),
  },

  runs: {
    /** Creates a run and starts its analysis. */
    start: (req: CreateRunRequest): Promise<Run> => call('StartRun', () => App.StartRun(req)),
    /** Everything about one run, live or from history. */
    snapshot: (runId: string): Promise<RunSnapshot> => call('RunSnapshot', () => App.RunSnapshot(runId)),
    active: (): Promise<Run[]> => call('ActiveRuns', () => App.ActiveRuns()),
    confirm: (runId: string, mods: Modifications): Promise<void> => call('ConfirmRun', () => App.ConfirmRun(runId, mods)),
    pause: (runId: string): Promise<void> => call('PauseRun', () => App.PauseRun(runId)),
    resume: (runId: string): Promise<void> => call('ResumeRun', () => App.ResumeRun(runId)),
    /** Ends a run's wait for a rate, overload or usage limit now (Resume now). */
    resumeAfterLimit: (runId: string): Promise<void> => call('ResumeAfterLimit', () => App.ResumeAfterLimit(runId)),
    /** Sets a run's budget (0 keeps that cap) and resumes a run its budget paused. */
    raiseBudget: (runId: string, maxCostUsd: number, maxTokens: number): Promise<void> =>
      call('RaiseBudget', () => App.RaiseBudget(runId, maxCostUsd, maxTokens)),
    cancel: (runId: string): Promise<void> => call('CancelRun', () => App.CancelRun(runId)),
    worker: (runId: string, taskId: string, action: WorkerAction): Promise<void> =>
      call('WorkerAction', () => App.WorkerAction(runId, taskId, action)),
    /** Answers the permission prompt a worker waits on. */
    answer: (runId: string, taskId: string, decision: PermissionDecision): Promise<void> =>
      call('AnswerWorker', () => App.AnswerWorker(runId, taskId, decision)),
    /** Answers a permission prompt of a run's main session (logged with the run). */
    answerMain: (runId: string, requestId: string, decision: PermissionDecision): Promise<void> =>
      call('AnswerMain', () => App.AnswerMain(runId, requestId, decision)),
    /** Allows a rule (one of a prompt's suggestions) for the rest of a run: every pending prompt it covers is answered. */
    allowForRun: (runId: string, rule: string): Promise<void> => call('AllowForRun', () => App.AllowForRun(runId, rule)),
    /** Answers the question a worker asks: question text → chosen option or own words. */
    answerQuestion: (runId: string, taskId: string, answers: Record<string, string>): Promise<void> =>
      call('AnswerWorkerQuestion', () => App.AnswerWorkerQuestion(runId, taskId, answers)),
    /** Approves or rejects a task that waits for the user's review; a rejection needs the reason for the worker. */
    review: (runId: string, taskId: string, approve: boolean, reason = ''): Promise<void> =>
      call('ReviewTask', () => App.ReviewTask(runId, taskId, approve, reason)),
    /** Answers the questions a worker asked (clarification_needed); the worker goes on with the answer. */
    answerClarification: (runId: string, taskId: string, text: string): Promise<void> =>
      call('AnswerClarification', () => App.AnswerClarification(runId, taskId, text)),
    history: (q: HistoryQuery): Promise<HistoryPage> => call('History', () => App.History(q)),
    remove: (runId: string): Promise<void> => call('DeleteRun', () => App.DeleteRun(runId)),
    inbox: (): Promise<InboxItem[]> => call('Inbox', () => App.Inbox()),
    /** The run's Markdown report. */
    report: (runId: string): Promise<string> => call('RunReport', () => App.RunReport(runId)),
    /** The report stored when the run finished: tasks, iterations, decisions, files, known limitations. */
    finalReport: (runId: string): Promise<FinalReport> => call('FinalReport', () => App.FinalReport(runId)),
    /** Asks where to save the Markdown report and writes it; cancelled when the user closed the picker. */
    exportReport: (runId: string): Promise<ReportExport> => call('ExportRunReport', () => App.ExportRunReport(runId)),
    /** Shows a file or folder of the run (relative to its folder) in the system file manager. */
    openPath: (runId: string, path: string): Promise<void> => call('OpenPath', () => App.OpenPath(runId, path)),
    /** The unified diff of one task's changes on the run branch (worktree isolation). */
    taskPatch: (runId: string, taskId: string): Promise<string> => call('TaskPatch', () => App.TaskPatch(runId, taskId)),
    /** Merges the run branch into the current branch of the run's repository. */
    apply: (runId: string): Promise<Applied> => call('ApplyRun', () => App.ApplyRun(runId)),
    /** Applies only these tasks' changes to the current branch (all of the run's when none); a task whose dependency is left out is refused. */
    applyTasks: (runId: string, tasks: string[]): Promise<Applied> => call('ApplyRunTasks', () => App.ApplyRunTasks(runId, tasks)),
    /** Drops the run branch; the user's branch stays as it is. */
    discard: (runId: string): Promise<void> => call('DiscardRun', () => App.DiscardRun(runId)),
    /** The files of a task's changes (or of the whole run branch, taskId ""), each with its text before and after. */
    diff: (runId: string, taskId: string): Promise<FileDiff[]> => call('RunDiff', () => App.RunDiff(runId, taskId)),
    /** Opens a file the run changed in the user's editor. */
    openInEditor: (runId: string, path: string): Promise<void> => call('OpenInEditor', () => App.OpenInEditor(runId, path)),
    /** The remotes the run branch can be pushed to. */
    remotes: (runId: string): Promise<Remotes> => call('RunRemotes', () => App.RunRemotes(runId)),
    /** Pushes the run branch to a remote with the user's own git setup. */
    push: (runId: string, remote: string): Promise<Pushed> => call('PushRun', () => App.PushRun(runId, remote)),
    /** Pushes the run branch and opens a pull request with gh, or says the command that opens it. */
    pullRequest: (runId: string, remote: string): Promise<PullRequestResult> => call('OpenPullRequest', () => App.OpenPullRequest(runId, remote)),
    /** Answers the run's merge conflict: resolved in the run's worktree, or the task's changes left out. */
    resolveConflict: (runId: string, resolved: boolean): Promise<void> =>
      call('ResolveConflict', () => App.ResolveConflict(runId, resolved)),
  },
};
