import logging

import azure.functions as func


def main(req: func.HttpRequest) -> func.HttpResponse:
    logging.info('Python HTTP trigger function processed a request.')
    return func.HttpResponse(
        f"Hello from Python in Pulumi! You have stood up a serverless function in Azure!"
    )
