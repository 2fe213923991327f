# A fault of rhel_installroot.sh, from outside the product: a dnf plugin that SIGKILLs dnf and the process that
# ran it (the script's step) once rpm has installed the first package of a transaction, as a power loss in the
# middle of rpm's transaction would leave the machine. Loaded only where the test names it (pluginpath,
# --enableplugin=gdkill); never part of gpudoctor.
import os
import signal

import dnf
import dnf.yum.rpmtrans
import rpm


class GdKill(dnf.Plugin):
    name = "gdkill"

    def pre_transaction(self):
        original = dnf.yum.rpmtrans.RPMTransaction.callback

        def callback(transaction, what, amount, total, key, client_data):
            result = original(transaction, what, amount, total, key, client_data)
            # INST_STOP: a package of the transaction is in (its files and its rpm database entry). Not
            # INST_CLOSE_FILE: rpm opens and closes every package's file while it prepares the transaction.
            if what == rpm.RPMCALLBACK_INST_STOP:
                os.kill(os.getppid(), signal.SIGKILL)
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        dnf.yum.rpmtrans.RPMTransaction.callback = callback
