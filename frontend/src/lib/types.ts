// The shapes the frontend shares with Go, named once. They come from the
// generated wailsjs models: when the bindings' Go types change, this is the
// one file that follows them. Everything else imports these names (through
// here or through api.ts), never wailsjs/go/models.
import { view } from '../../wailsjs/go/models';

export type AppInfo = view.AppInfo;
export type TemplateInfo = view.TemplateInfo;
export type Template = view.Template;
export type TemplateVariable = view.TemplateVariable;
export type ResolvedTemplate = view.ResolvedTemplate;
export type TemplateProblem = view.TemplateProblem;
export type TemplateImport = view.TemplateImport;
export type TemplateExport = view.TemplateExport;
export type Settings = view.Settings;
export type SettingsView = view.SettingsView;
export type HostKind = view.HostKind;
export type HostProgram = view.HostProgram;
export type DoctorReport = view.DoctorReport;
export type HostStatus = view.HostStatus;
export type SessionInfo = view.SessionInfo;
export type SessionTranscript = view.SessionTranscript;
export type TranscriptItem = view.TranscriptItem;
export type PermissionPrompt = view.PermissionPrompt;
export type PermissionDecision = 'once' | 'always' | 'deny';
export type Run = view.Run;
export type Task = view.Task;
export type Worker = view.Worker;
export type RunningTool = view.RunningTool;
export type PhaseAnswer = view.PhaseAnswer;
export type RunSnapshot = view.Snapshot;
export type CreateRunRequest = view.CreateRequest;
export type RunOverrides = view.Overrides;
export type Modifications = view.Modifications;
export type TaskEdit = view.TaskEdit;
export type NewTask = view.NewTask;
export type HistoryQuery = view.HistoryQuery;
export type HistoryPage = view.HistoryPage;
export type InboxItem = view.InboxItem;
export type Suggestion = view.Suggestion;
export type PermissionLogEntry = view.PermissionDecision;
export type PermissionRules = view.PermissionRules;
export type ReportExport = view.ReportExport;
export type FinalReport = view.FinalReport;
export type RunWorktree = view.Worktree;
export type TaskChanges = view.TaskChanges;
export type Applied = view.Applied;
export type FileDiff = view.FileDiff;
export type Remotes = view.Remotes;
export type Pushed = view.Pushed;
export type PullRequestResult = view.PullRequestResult;
export type WorkerAction = 'pause' | 'resume' | 'cancel' | 'retry';
export type RemoteStatus = view.RemoteStatus;
export type RemoteLink = view.RemoteLink;
export type Machine = view.Machine;
export type MachinesView = view.MachinesView;

// Builders: plain JSON made into the generated classes the bindings take.

/** A machine of Settings → Machines as the form holds it. */
export const newMachine = (source: Partial<Machine>): Machine => view.Machine.createFrom(source);

/** The request that starts a run. */
export const createRunRequest = (source: Partial<CreateRunRequest>): CreateRunRequest => view.CreateRequest.createFrom(source);

/** The user's changes to a proposed task list. */
export const newModifications = (source: Partial<Modifications>): Modifications => view.Modifications.createFrom(source);

/** A run's snapshot as RunSnapshot returns it. */
export const snapshotFrom = (source: unknown): RunSnapshot => view.Snapshot.createFrom(source);

/** A task as the run bindings return it. */
export const taskFrom = (source: unknown): Task => view.Task.createFrom(source);
