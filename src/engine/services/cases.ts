/** Alerts and cases, as the case policy built them from hits (reads only). */
import { cloneJson } from '../../domain/json.js';
import { notFound } from '../../errors.js';
import type { EngineSettings } from '../options.js';
import type { Engine } from '../types.js';
import { assertId } from './assert-id.js';

/** The alert and case reads of one engine. */
export function createCaseService(settings: EngineSettings): Pick<Engine, 'listAlerts' | 'getAlert' | 'listCases' | 'getCase'> {
  const repos = settings.repositories;
  return {
    async listAlerts() {
      return cloneJson(await repos.cases.listAlerts());
    },
    async getAlert(alertId) {
      assertId(alertId, 'alertId');
      const alert = await repos.cases.getAlert(alertId);
      if (!alert) throw notFound('ALERT_NOT_FOUND', 'alert');
      return cloneJson(alert);
    },
    async listCases() {
      return cloneJson(await repos.cases.listCases());
    },
    async getCase(caseId) {
      assertId(caseId, 'caseId');
      const found = await repos.cases.getCase(caseId);
      if (!found) throw notFound('CASE_NOT_FOUND', 'case');
      return cloneJson(found);
    },
  };
}
