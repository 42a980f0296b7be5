// In-memory stand-in for the generated wailsjs/go/main/App bindings. Tests
// set what each binding answers and read which bindings were called.
import type * as T from '../../lib/types';

type Handler = (...args: unknown[]) => Promise<unknown>;

export const calls: { name: string; args: unknown[] }[] = [];
const handlers = new Map<string, Handler>();

/** Sets what the binding `name` does for the rest of the test. */
export function answer(name: string, handler: Handler): void {
  handlers.set(name, handler);
}

export function resetBindings(): void {
  calls.length = 0;
  handlers.clear();
}

function invoke<T>(name: string, ...args: unknown[]): Promise<T> {
  calls.push({ name, args });
  const handler = handlers.get(name);
  if (!handler) {
    return Promise.reject(`fake binding ${name} has no answer set`);
  }
  return handler(...args) as Promise<T>;
}

export function Ready(): Promise<T.AppInfo> {
  return invoke('Ready');
}

// Template bindings (app_templates.go).
export const ListTemplates = (): Promise<T.TemplateInfo[]> => invoke('ListTemplates');
export const TemplateSource = (id: string): Promise<string> => invoke('TemplateSource', id);
export const ResolveTemplate = (id: string): Promise<T.ResolvedTemplate> => invoke('ResolveTemplate', id);
export const ResolveTemplateDraft = (doc: string): Promise<T.ResolvedTemplate> => invoke('ResolveTemplateDraft', doc);
export const ValidateTemplate = (doc: string): Promise<T.TemplateProblem[]> => invoke('ValidateTemplate', doc);
export const CreateTemplate = (doc: string): Promise<T.Template> => invoke('CreateTemplate', doc);
export const UpdateTemplate = (id: string, doc: string): Promise<T.Template> => invoke('UpdateTemplate', id, doc);
export const DeleteTemplate = (id: string): Promise<void> => invoke('DeleteTemplate', id);
export const DuplicateTemplate = (id: string, name: string): Promise<T.Template> => invoke('DuplicateTemplate', id, name);
export const GenerateTemplateID = (name: string): Promise<string> => invoke('GenerateTemplateID', name);
export const ImportTemplate = (): Promise<T.TemplateImport> => invoke('ImportTemplate');
export const ExportTemplate = (id: string, resolved: boolean): Promise<T.TemplateExport> => invoke('ExportTemplate', id, resolved);

// Settings, host and session bindings (app_settings.go, app_sessions.go).
export const GetSettings = (): Promise<T.SettingsView> => invoke('GetSettings');
export const SaveSettings = (s: T.Settings): Promise<T.SettingsView> => invoke('SaveSettings', s);
export const ResetSettings = (): Promise<T.SettingsView> => invoke('ResetSettings');
export const TestConnection = (s: T.Settings): Promise<T.DoctorReport> => invoke('TestConnection', s);
export const HostStatus = (): Promise<T.HostStatus> => invoke('HostStatus');
export const HostKinds = (): Promise<T.HostKind[]> => invoke('HostKinds');
export const ListSessions = (includeHidden: boolean): Promise<T.SessionInfo[]> => invoke('ListSessions', includeHidden);
export const ReadSessionTranscript = (id: string): Promise<T.SessionTranscript> => invoke('ReadSessionTranscript', id);
export const SendToSession = (id: string, text: string): Promise<void> => invoke('SendToSession', id, text);
export const StartSession = (cwd: string, message: string): Promise<string> => invoke('StartSession', cwd, message);
export const ChooseFolder = (title: string): Promise<string> => invoke('ChooseFolder', title);

// Machines bindings (app_machines.go).
export const GetMachines = (): Promise<T.MachinesView> => invoke('GetMachines');
export const SaveMachine = (m: T.Machine, replace: boolean): Promise<T.MachinesView> => invoke('SaveMachine', m, replace);
export const RemoveMachine = (name: string): Promise<T.MachinesView> => invoke('RemoveMachine', name);
export const TestMachine = (name: string): Promise<T.DoctorReport> => invoke('TestMachine', name);

// Remote access bindings (app_remote.go).
export const RemoteAccessStatus = (): Promise<T.RemoteStatus> => invoke('RemoteAccessStatus');
export const StartRemoteAccess = (listen: string, behindProxy: boolean): Promise<T.RemoteLink> =>
  invoke('StartRemoteAccess', listen, behindProxy);
export const StopRemoteAccess = (): Promise<void> => invoke('StopRemoteAccess');
export const NewRemoteLink = (): Promise<T.RemoteLink> => invoke('NewRemoteLink');
export const PendingPermissions = (): Promise<T.PermissionPrompt[]> => invoke('PendingPermissions');
export const RespondPermission = (requestId: string, decision: string): Promise<void> =>
  invoke('RespondPermission', requestId, decision);

// Run bindings (app_runs.go, app_reports.go).
export const StartRun = (req: T.CreateRunRequest): Promise<T.Run> => invoke('StartRun', req);
export const RunSnapshot = (runId: string): Promise<T.RunSnapshot> => invoke('RunSnapshot', runId);
export const ActiveRuns = (): Promise<T.Run[]> => invoke('ActiveRuns');
export const ConfirmRun = (runId: string, mods: T.Modifications): Promise<void> => invoke('ConfirmRun', runId, mods);
export const PauseRun = (runId: string): Promise<void> => invoke('PauseRun', runId);
export const ResumeRun = (runId: string): Promise<void> => invoke('ResumeRun', runId);
export const ResumeAfterLimit = (runId: string): Promise<void> => invoke('ResumeAfterLimit', runId);
export const RaiseBudget = (runId: string, maxCostUsd: number, maxTokens: number): Promise<void> => invoke('RaiseBudget', runId, maxCostUsd, maxTokens);
export const CancelRun = (runId: string): Promise<void> => invoke('CancelRun', runId);
export const WorkerAction = (runId: string, taskId: string, action: string): Promise<void> =>
  invoke('WorkerAction', runId, taskId, action);
export const AnswerWorker = (runId: string, taskId: string, decision: string): Promise<void> =>
  invoke('AnswerWorker', runId, taskId, decision);
export const AnswerMain = (runId: string, requestId: string, decision: string): Promise<void> =>
  invoke('AnswerMain', runId, requestId, decision);
export const AllowForRun = (runId: string, rule: string): Promise<void> => invoke('AllowForRun', runId, rule);
export const AnswerWorkerQuestion = (runId: string, taskId: string, answers: Record<string, string>): Promise<void> =>
  invoke('AnswerWorkerQuestion', runId, taskId, answers);
export const ReviewTask = (runId: string, taskId: string, approve: boolean, reason: string): Promise<void> =>
  invoke('ReviewTask', runId, taskId, approve, reason);
export const AnswerClarification = (runId: string, taskId: string, text: string): Promise<void> =>
  invoke('AnswerClarification', runId, taskId, text);
export const History = (q: T.HistoryQuery): Promise<T.HistoryPage> => invoke('History', q);
export const DeleteRun = (runId: string): Promise<void> => invoke('DeleteRun', runId);
export const Inbox = (): Promise<T.InboxItem[]> => invoke('Inbox');
export const RunReport = (runId: string): Promise<string> => invoke('RunReport', runId);
export const ExportRunReport = (runId: string): Promise<T.ReportExport> => invoke('ExportRunReport', runId);
export const FinalReport = (runId: string): Promise<T.FinalReport> => invoke('FinalReport', runId);
export const OpenPath = (runId: string, path: string): Promise<void> => invoke('OpenPath', runId, path);
export const TaskPatch = (runId: string, taskId: string): Promise<string> => invoke('TaskPatch', runId, taskId);
export const ApplyRun = (runId: string): Promise<T.Applied> => invoke('ApplyRun', runId);
export const ApplyRunTasks = (runId: string, tasks: string[]): Promise<T.Applied> => invoke('ApplyRunTasks', runId, tasks);
export const DiscardRun = (runId: string): Promise<void> => invoke('DiscardRun', runId);
export const RunDiff = (runId: string, taskId: string): Promise<T.FileDiff[]> => invoke('RunDiff', runId, taskId);
export const OpenInEditor = (runId: string, path: string): Promise<void> => invoke('OpenInEditor', runId, path);
export const RunRemotes = (runId: string): Promise<T.Remotes> => invoke('RunRemotes', runId);
export const PushRun = (runId: string, remote: string): Promise<T.Pushed> => invoke('PushRun', runId, remote);
export const OpenPullRequest = (runId: string, remote: string): Promise<T.PullRequestResult> => invoke('OpenPullRequest', runId, remote);
export const ResolveConflict = (runId: string, resolved: boolean): Promise<void> => invoke('ResolveConflict', runId, resolved);
