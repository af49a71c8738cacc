/**
 * The team of the merchant account: members with their roles (the owner first), pending
 * invitations, inviting by e-mail, changing a role and removing a member. The API refuses these
 * changes to roles other than owner and administrator; the screen shows its refusal.
 */
import { useTranslation } from 'react-i18next';
import { useChangeMemberRole, useInviteMember, useRemoveMember, useRevokeInvitation, useTeam, useTeamSettings, type InvitableRole } from '../../hooks/api/team';
import { CardForm, ErrorBox, Field, QueryView, SaveWithStatus, SelectField } from '../../ui';

const ROLES: InvitableRole[] = ['ADMINISTRATOR', 'DEVELOPER', 'FINANCE', 'APPROVER', 'VIEWER'];

export default function Team() {
  const { t } = useTranslation();
  const team = useTeam();
  const invite = useInviteMember();
  const change = useChangeMemberRole();
  const remove = useRemoveMember();
  const revoke = useRevokeInvitation();
  const settings = useTeamSettings();
  const roleOptions = ROLES.map((role): [string, string] => [role, t(`team.role_${role}`)]);
  return (
    <>
      <h1>{t('team.title')}</h1>
      <p className="muted">{t('team.help')}</p>
      <QueryView query={team}>
        {(data) => (
          <section aria-labelledby="members" className="card">
            <h2 id="members">{t('team.members')}</h2>
            <ul className="rows">
              {data.members.map((member) => (
                <li key={member.id} className="row">
                  <span className="row-main">
                    <span className="ref">{member.fullName}</span>
                    <span className="muted">{member.email}</span>
                  </span>
                  {member.role === 'OWNER' ? (
                    <span className="badge">{t('team.role_OWNER')}</span>
                  ) : (
                    <span className="actions">
                      <select
                        aria-label={t('team.roleOf', { name: member.fullName })}
                        value={member.role}
                        onChange={(event) => change.mutate({ id: member.id, role: event.target.value as InvitableRole })}
                      >
                        {roleOptions.map(([value, label]) => (
                          <option key={value} value={value}>
                            {label}
                          </option>
                        ))}
                      </select>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (window.confirm(t('team.removeConfirm', { name: member.fullName }))) remove.mutate(member.id);
                        }}
                      >
                        {t('team.remove')}
                      </button>
                    </span>
                  )}
                </li>
              ))}
            </ul>
            {data.invitations.length > 0 && (
              <>
                <h3>{t('team.pending')}</h3>
                <ul className="rows">
                  {data.invitations.map((invitation) => (
                    <li key={invitation.id} className="row">
                      <span className="row-main">
                        <span className="ref">{invitation.email}</span>
                        <span className="muted">{t(`team.role_${invitation.role}`)}</span>
                      </span>
                      <button type="button" onClick={() => revoke.mutate(invitation.id)}>
                        {t('team.cancelInvitation')}
                      </button>
                    </li>
                  ))}
                </ul>
              </>
            )}
            <label className="check">
              <input type="checkbox" checked={data.membersNeedSecondFactor} disabled={settings.isPending} onChange={(event) => settings.mutate(event.target.checked)} />{' '}
              {t('team.requireSecondFactor')}
            </label>
            {settings.error ? <ErrorBox error={settings.error} /> : null}
            {change.error ? <ErrorBox error={change.error} /> : null}
            {remove.error ? <ErrorBox error={remove.error} /> : null}
            {revoke.error ? <ErrorBox error={revoke.error} /> : null}
          </section>
        )}
      </QueryView>
      <CardForm label={t('team.invite')} onSubmit={(form) => invite.mutate({ email: String(form.get('email')).trim(), role: form.get('role') as InvitableRole })}>
        <Field label={t('common.email')} name="email" type="email" required maxLength={255} />
        <SelectField label={t('team.role')} name="role" defaultValue="VIEWER" options={roleOptions} />
        <SaveWithStatus mutation={invite} doneText={t('team.invited')} />
      </CardForm>
    </>
  );
}
